package dev.knotless.run.reconciler.app;

import dev.knotless.runner.engine.Jobs;
import dev.knotless.runner.engine.MinutesWriter;
import dev.knotless.runner.schedule.MinutesRecords;
import dev.knotless.runner.schedule.RunEnded;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SchedulerConfig;
import dev.knotless.runner.schedule.UsageLedger;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.UsageSeed;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * One worker's share of the runner's usage, kept whole in the shared state: each run's step time
 * goes into its repository's {@code used} in PostgreSQL, the scheduler's ledger is caught up with
 * every reconciler's from there, and the owners' minutes records are decided and written from the
 * whole runner's usage, as the all-in-one writes them from its own. Thread-safe.
 */
final class SharedUsage {
  private static final Logger LOG = Logger.getLogger(SharedUsage.class);

  private final StateStore state;
  private final SchedulerConfig config;
  private final MinutesWriter minutes;
  private final Clock clock;
  private final UsageLedger ledger = new UsageLedger();
  private final MinutesRecords marks = new MinutesRecords();

  /**
   * @param minutes where owners' minutes records go, or null to write none
   */
  SharedUsage(StateStore state, SchedulerConfig config, MinutesWriter minutes, Clock clock) {
    this.state = state;
    this.config = config;
    this.minutes = minutes;
    this.clock = clock;
    // Allowances count what every reconciler's runs used, as the state in PostgreSQL has it.
    UsageSeed.into(ledger, state);
  }

  /** The scheduler's ledger; touched only under the job pool's lock. */
  UsageLedger ledger() {
    return ledger;
  }

  /**
   * A run's step time into the shared state; then, for a public run, the owner's minutes record
   * when the spacing or the 80% and 100% marks of the whole runner's usage say so. A database that
   * cannot be reached costs the record of this run's time, never the run's end.
   */
  void ended(RunEnded ended) {
    RunRequest r = ended.request();
    try {
      state.update(
          r.repo(),
          s ->
              s.withUsage(
                  ended.day(),
                  ended.stepMillis(),
                  r.privateRepo(),
                  UsageLedger.day(clock.instant())));
      if (r.privateRepo() || minutes == null) {
        return;
      }
      Instant now = clock.instant();
      UsageLedger owner = ownerUsage(r.ownerDid());
      long after = owner.usedMillis(r.ownerDid(), false, UsageLedger.day(now));
      long allowance = config.allowanceMillis(r.ownerDid(), false);
      boolean writeNow;
      synchronized (marks) {
        writeNow = marks.runEnded(r.ownerDid(), after - ended.stepMillis(), after, allowance, now);
      }
      if (writeNow) {
        write(r.ownerDid(), owner);
      }
    } catch (RuntimeException e) {
      LOG.warnf("%s: the usage of run %s was not kept: %s", r.repo(), r.runId(), e.getMessage());
    }
  }

  /**
   * Catches the ledger up with what every reconciler's runs used (under {@code jobs}' lock, which
   * guards the scheduler), and writes the records the five-minute spacing held back, once due.
   */
  void refresh(Jobs jobs) {
    try {
      UsageLedger all = new UsageLedger();
      UsageSeed.into(all, state);
      jobs.inspect(
          s -> {
            ledger.catchUp(all);
            return null;
          });
      List<String> due;
      synchronized (marks) {
        due = marks.due(clock.instant());
      }
      if (minutes != null) {
        due.forEach(o -> write(o, ownerUsage(o)));
      }
    } catch (RuntimeException e) {
      LOG.warnf("usage not caught up with the other reconcilers': %s", e.getMessage());
    }
  }

  /** The owner's public usage as every reconciler's runs added it to the shared state. */
  private UsageLedger ownerUsage(String ownerDid) {
    UsageLedger out = new UsageLedger();
    for (String repo : state.repositories()) {
      if (repo.startsWith(ownerDid + "/")) {
        state
            .load(repo)
            .ifPresent(
                s -> s.used().forEach((day, millis) -> out.add(ownerDid, false, day, millis)));
      }
    }
    return out;
  }

  private void write(String ownerDid, UsageLedger owner) {
    minutes.write(MinutesRecords.record(ownerDid, owner, config, clock.instant()));
  }
}
