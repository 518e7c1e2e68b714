package dev.knotless.run.reconciler.app;

import dev.knotless.run.events.RunEvent;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.pg.PgRunQueue;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * The recovery of runs whose worker went silent past {@code stale-after} (killed, or its pod
 * evicted, or stopped and handed them back): such rows are left by reconcilers of older versions,
 * which ran runs themselves. Each is put back into its repository's dropped runs and its door rung,
 * so the pass that owns the repository files it again, now with an order for the scheduler. A run
 * asked for by name is ended as lost instead: its row does not hold the request's variables.
 * Thread-safe.
 */
final class StaleRuns {
  private static final Logger LOG = Logger.getLogger(StaleRuns.class);

  private final PgRunQueue queue;
  private final StateStore state;
  private final Duration staleAfter;
  private final Consumer<RunEvent> publish;
  private final BiConsumer<String, Doorbell> ring;
  private final Clock clock;

  StaleRuns(
      PgRunQueue queue,
      StateStore state,
      Duration staleAfter,
      Consumer<RunEvent> publish,
      BiConsumer<String, Doorbell> ring,
      Clock clock) {
    this.queue = queue;
    this.state = state;
    this.staleAfter = staleAfter;
    this.publish = publish;
    this.ring = ring;
    this.clock = clock;
  }

  /**
   * One round of recovery by the worker {@code me}.
   *
   * @param onlyWithoutOrder a queueing reconciler's round: only rows with no order, which a
   *     reconciler that ran runs itself (before an upgrade to pods) left; the scheduler never runs
   *     them, and rows with an order are the scheduler's to adopt or end
   */
  void recover(String me, boolean onlyWithoutOrder) {
    List<PgRunQueue.Row> stale = RunQueuer.db(() -> queue.stale(staleAfter));
    for (PgRunQueue.Row row : stale) {
      PgRunQueue.Run r = row.run();
      String worker = row.worker();
      if (worker == null || r.subject() == null || worker.equals(me)) {
        // Unheld rows are not runs; this worker's own rows look stale only after the database was
        // away, and their runs are still going here.
        continue;
      }
      if (onlyWithoutOrder && r.order() != null) {
        continue;
      }
      if (r.runClass() == RunClass.ASKED) {
        // A run asked for by name is filed again from the owner's request, which the row does
        // not hold (its variables); it is ended as lost rather than run without them.
        if (RunQueuer.db(() -> queue.takeStale(r.checkKey(), staleAfter))) {
          LOG.warnf(
              "%s: run %s asked for by name was lost with its worker", r.repo(), r.checkKey());
          publish.accept(
              new RunEvent.Ended(
                  r.checkKey(),
                  clock.instant(),
                  "error",
                  0,
                  List.of(),
                  "its worker stopped; ask for it again"));
        }
        continue;
      }
      // The state first, then the row: a recovery cut short leaves the row, to be taken again.
      state.update(
          r.repo(),
          s ->
              s.withDropped(
                  new DroppedRun(r.subject(), r.commit(), r.baseCommit(), List.of(r.workflow()))));
      if (RunQueuer.db(() -> queue.takeStale(r.checkKey(), staleAfter))) {
        LOG.infof(
            "%s: %s at %s was held by %s, silent past %s: filed again",
            r.repo(), r.workflow(), r.commit(), worker, staleAfter);
        ring.accept(r.repo(), Doorbell.RETRY);
      }
    }
  }
}
