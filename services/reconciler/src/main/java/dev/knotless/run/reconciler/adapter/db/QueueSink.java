package dev.knotless.run.reconciler.adapter.db;

import dev.knotless.runner.engine.PlannedRun;
import dev.knotless.runner.pass.RepoPass;
import dev.knotless.runner.schedule.RunRequest;
import io.quarkus.vertx.VertxContextSupport;

/**
 * Puts each run a pass filed as queued into the PostgreSQL run queue, keyed by its check. Called
 * from a pass thread, never an event loop: it waits for the row to be written, so a pass that
 * returns has queued every run it filed. Thread-safe.
 */
public final class QueueSink implements RepoPass.RunSink {
  private final RunQueue queue;

  public QueueSink(RunQueue queue) {
    this.queue = queue;
  }

  @Override
  public void submit(PlannedRun run) {
    RunRequest r = run.request();
    RunQueue.RunClass runClass = RunQueue.RunClass.valueOf(r.runClass().name());
    try {
      VertxContextSupport.subscribeAndAwait(
          () ->
              queue.enqueue(
                  run.rkey(), r.repo(), r.ownerDid(), runClass, r.workflow(), r.revision()));
    } catch (RuntimeException e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("run " + run.rkey() + " could not be queued", e);
    }
  }
}
