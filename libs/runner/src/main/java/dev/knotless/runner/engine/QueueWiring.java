package dev.knotless.runner.engine;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.mergequeue.BatchLanding;
import dev.knotless.runner.mergequeue.QueueNotice;
import dev.knotless.runner.mergequeue.QueuePass;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.pass.RunSink;
import dev.knotless.runner.plan.AskedLedger;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.pullpass.AppviewPulls;
import dev.knotless.runner.pullpass.PullPass;
import dev.knotless.runner.repopass.PassExtras;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.Settings;
import dev.knotless.storage.push.Pusher;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the pulls ({@code --pulls}) and the merge queue ({@code --queue}) into the all-in-one
 * runner: the {@link QueuePass} a pass runs after its pulls, a {@link RunReports} that rings a
 * repository's door once a batch's run is filed as ended, so the pass that reads how the batch went
 * comes at once rather than at the next sweep, and the queue records read again every {@code
 * --notice}. Kept apart from the runner so that it stays the size it is.
 */
public final class QueueWiring {

  private static final Logger LOG = LoggerFactory.getLogger(QueueWiring.class);

  private QueueWiring() {}

  /**
   * The pass's extras of a runner started with {@code o}: all of them, with {@code --pulls} the
   * pulls step, and with {@code --queue} the queue step after it.
   */
  public static PassExtras extras(
      RunnerOptions o,
      PdsAccess access,
      StateStore state,
      CheckFiler filer,
      RunPlanner planner,
      AskedLedger asked,
      RunSink sink,
      QueuePass.Cancels cancels,
      Clock clock) {
    PassExtras all =
        PassExtras.all(planner, filer, asked, o.keepChecks(), o.secrets())
            .forRunner(access.runner().did());
    if (!o.pulls()) {
      return all;
    }
    PullPass pulls =
        new PullPass(
            new AppviewPulls(XrpcClient.create(o.appview())),
            access.heads(),
            state,
            filer,
            planner,
            sink,
            access.cache().dir(),
            clock,
            o.pullsOnly(),
            access.runner().did());
    PassExtras withPulls = all.withPulls(pulls, o.pullsOnly());
    return o.queue()
        ? withPulls.withQueue(
            pass(o.batch(), o.depth(), access, state, filer, planner, sink, cancels, pulls, clock))
        : withPulls;
  }

  /**
   * The queue step of a runner, landing as the account it logs in as, and running queued pulls'
   * pre-flights through {@code pulls}: batches of at most {@code batch} pulls, at most {@code
   * depth} of them checked at once on a branch. The all-in-one and the distributed reconciler make
   * it here alike.
   */
  public static QueuePass pass(
      int batch,
      int depth,
      PdsAccess access,
      StateStore state,
      CheckFiler filer,
      RunPlanner planner,
      RunSink sink,
      QueuePass.Cancels cancels,
      PullPass pulls,
      Clock clock) {
    var runner = access.runner();
    BatchLanding landing =
        new BatchLanding(
            new Pusher(runner, access.cache(), clock, Settings.defaults().claimGrace()),
            runner,
            clock);
    return new QueuePass(
        runner,
        did -> access.owner(access.identities().resolve(did).pds()),
        access,
        access.heads(),
        state,
        filer,
        planner,
        sink,
        cancels,
        landing,
        pulls,
        clock,
        batch,
        depth);
  }

  /**
   * Reads the queue records {@code notice} knows of again every {@code every} ({@code --notice}),
   * and rings {@code ring} for each repository whose records changed since its last pass.
   */
  public static void noticing(
      QueueNotice notice, ScheduledExecutorService timers, Duration every, Consumer<RepoId> ring) {
    timers.scheduleWithFixedDelay(
        () -> {
          try {
            notice.changed().forEach(ring);
          } catch (RuntimeException e) {
            // A scheduled task that throws is never run again: the next read must still come.
            LOG.warn("the merge queue's records could not be read again: {}", e.toString());
          }
        },
        every.toMillis(),
        every.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * {@code reports}, and after a batch's run is filed as ended, {@code ring} with the state key of
   * its repository; with {@code pullsToo} (a runner landing queues) after a pull's run as well,
   * since a queued pull's pre-flight ending may let it into a batch.
   */
  public static RunReports ringing(RunReports reports, Consumer<String> ring, boolean pullsToo) {
    return new RunReports() {
      @Override
      public void started(PlannedRun run, CheckRecord running)
          throws dev.knotless.atproto.XrpcException {
        reports.started(run, running);
      }

      @Override
      public RunListener listener(PlannedRun run) {
        return reports.listener(run);
      }

      @Override
      public void ended(PlannedRun run, CheckRecord running, RunResult result, String fault) {
        try {
          reports.ended(run, running, result, fault);
        } finally {
          SubjectKind kind = run.request().subjectKind();
          if (kind == SubjectKind.BATCH || (pullsToo && kind == SubjectKind.PULL)) {
            ring.accept(run.request().repo());
          }
        }
      }

      @Override
      public void cancelledUnstarted(PlannedRun run, String why) {
        reports.cancelledUnstarted(run, why);
      }

      @Override
      public void withdrawn(PlannedRun run, String why) {
        try {
          reports.withdrawn(run, why);
        } finally {
          if (pullsToo && run.request().subjectKind() == SubjectKind.PULL) {
            ring.accept(run.request().repo());
          }
        }
      }
    };
  }
}
