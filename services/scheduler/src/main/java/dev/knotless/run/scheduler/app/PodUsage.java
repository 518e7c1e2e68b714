package dev.knotless.run.scheduler.app;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.engine.MinutesWriter;
import dev.knotless.runner.engine.SharedUsage;
import dev.knotless.runner.filing.RetryingWrites;
import dev.knotless.runner.schedule.SchedulerConfig;
import dev.knotless.runner.state.pg.PgStateStore;
import java.time.Clock;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The scheduling policy the leader ranks pod runs by, and the usage it keeps for it: each pod run's
 * step time goes into the shared state in PostgreSQL beside the reconcilers' (libs/runner's {@link
 * SharedUsage}), so allowances count the whole runner, a new leader starts from what the last one
 * kept, and the owners' {@code dev.knotless.minutes} records are written from it, as the
 * all-in-one's and a reconciler's are.
 *
 * @param config the policy: jobs, owner caps, allowance
 * @param shared the usage in the state, and where its minutes records go
 */
record PodUsage(SchedulerConfig config, SharedUsage shared) {

  /** The policy {@code settings} give, with usage kept in {@code db} and records in the account. */
  static PodUsage open(
      dev.knotless.run.scheduler.app.SchedulerConfig settings,
      DataSource db,
      String runnerDid,
      XrpcClient runner,
      Clock clock) {
    SchedulerConfig config =
        SchedulerConfig.defaults(settings.jobs(), runnerDid)
            .withCaps(
                Math.max(1, settings.jobs() / 2), settings.ownerJobs().orElse(settings.jobs()))
            .withAllowances(
                settings.allowance().orElse(SchedulerConfig.UNLIMITED),
                SchedulerConfig.UNLIMITED,
                Set.of());
    MinutesWriter minutes = new MinutesWriter(new RetryingWrites(runner), clock);
    return new PodUsage(config, new SharedUsage(new PgStateStore(db), config, minutes, clock));
  }
}
