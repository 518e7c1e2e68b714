package dev.knotless.run.reconciler.app;

import dev.knotless.run.events.EventReports;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.engine.Jobs;
import dev.knotless.runner.plan.AskedLedger;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.pg.PgRunQueue;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.jboss.logging.Logger;

/**
 * What a stopping worker does with the runs its stop lets go (runner.md, "A stop"): a run that
 * never started is handed back, its row let go for another worker to file again under the same
 * check; a run asked for by name, waiting or cut off as it ran, is recorded in its repository's
 * {@code wanted} in PostgreSQL with its variables, its row taken off the queue and its door rung,
 * so the reconciler that passes the repository now files it again (its check queued once more) and
 * runs it from the start. A cut-off run reports no end: its check is filed again, not ended.
 * Thread-safe.
 */
final class StopHandover implements Jobs.StopDrops {
  private static final Logger LOG = Logger.getLogger(StopHandover.class);

  private final PgRunQueue queue;
  private final StateStore state;
  private final String worker;
  private final AskedLedger asked;
  private final EventReports reports;
  private final BiConsumer<String, Doorbell> ring;
  private final Map<String, PlannedRun> cutOff = new ConcurrentHashMap<>();

  /**
   * @param worker the stopping worker's id in the run queue
   * @param asked what each run asked for by name was asked for with
   * @param ring rings a repository's door (by its {@code <owner did>/<key>}) through the topic
   */
  StopHandover(
      PgRunQueue queue,
      StateStore state,
      String worker,
      AskedLedger asked,
      EventReports reports,
      BiConsumer<String, Doorbell> ring) {
    this.queue = queue;
    this.state = state;
    this.worker = worker;
    this.asked = asked;
    this.reports = reports;
    this.ring = ring;
  }

  @Override
  public boolean fileCancelled() {
    return false;
  }

  @Override
  public void dropped(PlannedRun run) {
    if (run.request().askedByName()) {
      wantAgain(run);
    } else {
      handBack(run.rkey());
    }
  }

  @Override
  public void cutOff(PlannedRun run) {
    cutOff.put(run.rkey(), run);
    reports.cutOff(run.rkey());
  }

  /**
   * The run {@link #cutOff} named ended cancelled with no end reported: it goes to be run again.
   */
  void cutOffEnded(String checkKey) {
    PlannedRun run = cutOff.remove(checkKey);
    if (run != null) {
      wantAgain(run);
    }
  }

  /**
   * The row first, so the next filing of the check claims it afresh; then the request, then the
   * door. A stop that dies between the two loses the request, as a crash does: the owner asks
   * again.
   */
  private void wantAgain(PlannedRun run) {
    String key = run.rkey();
    var entry = asked.take(run.request().runId());
    if (entry.isEmpty()) {
      // Not filed by this worker's passes: the recovery ends it, saying to ask again.
      handBack(key);
      return;
    }
    AskedLedger.Entry e = entry.get();
    try {
      RunWorker.db(() -> queue.remove(key, worker));
      state.update(e.repo(), s -> s.withWanted(e.ref(), e.wanted()));
      ring.accept(run.request().repo(), Doorbell.ASKED);
      LOG.infof(
          "stopping: %s (%s asked for by name at %s) handed back, to be filed and run again",
          key, e.wanted().workflow(), e.ref());
    } catch (RuntimeException ex) {
      LOG.warnf("%s: %s asked for by name could not be handed back: %s", run.label(), key, ex);
    }
  }

  /** Lets go of one run's row at once, so another worker's recovery files it again. */
  void handBack(String checkKey) {
    try {
      if (RunWorker.db(() -> queue.releaseOne(checkKey, worker))) {
        LOG.infof("stopping: %s handed back to the other workers", checkKey);
      }
    } catch (RuntimeException e) {
      LOG.warnf("%s could not be handed back now; it is at the stop's end: %s", checkKey, e);
    }
  }
}
