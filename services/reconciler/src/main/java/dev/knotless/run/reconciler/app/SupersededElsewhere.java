package dev.knotless.run.reconciler.app;

import dev.knotless.runner.engine.Jobs;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.schedule.CancelReason;
import dev.knotless.runner.schedule.Scheduler;
import dev.knotless.runner.state.pg.PgRunQueue;
import org.jboss.logging.Logger;

/**
 * Superseding across workers (docs/distributed.md, "Superseding"): a repository moves between
 * reconcilers as they start and stop, so a newer commit's run may be filed on one worker while the
 * older commit's run waits or runs on another. The worker filing the newer run marks the older rows
 * in the queue ({@link #mark}); the worker holding one cancels it ({@link #cancelMarked}). Which
 * runs mark is runner-core's rule ({@link Scheduler#supersedesElsewhere}). Thread-safe.
 */
final class SupersededElsewhere {
  private static final Logger LOG = Logger.getLogger(SupersededElsewhere.class);

  private final PgRunQueue queue;
  private final String worker;

  /**
   * @param worker this worker's id in the run queue
   */
  SupersededElsewhere(PgRunQueue queue, String worker) {
    this.queue = queue;
    this.worker = worker;
  }

  /** Marks the older runs of {@code run}'s workflow on its subject that other workers hold. */
  void mark(PlannedRun run, PgRunQueue.Run row) {
    if (!Scheduler.supersedesElsewhere(run.request())) {
      return;
    }
    try {
      int marked = RunWorker.db(() -> queue.supersedeElsewhere(row, worker));
      if (marked > 0) {
        LOG.infof(
            "%s: %s supersedes %d older run(s) of %s another worker holds",
            run.label(), run.rkey(), marked, run.request().workflow());
      }
    } catch (RuntimeException e) {
      LOG.warnf(
          "%s: older runs elsewhere not told of %s: %s", run.label(), run.rkey(), e.getMessage());
    }
  }

  /** Cancels this worker's runs that another worker's newer commit marked. */
  void cancelMarked(Jobs jobs) {
    if (jobs == null) {
      return;
    }
    try {
      for (String key : RunWorker.db(() -> queue.superseded(worker))) {
        jobs.cancelCheck(key, CancelReason.SUPERSEDED);
      }
    } catch (RuntimeException e) {
      LOG.debugf("superseded runs not read now: %s", e.getMessage());
    }
  }
}
