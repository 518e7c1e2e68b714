package dev.knotless.runner.pass;

import dev.knotless.runner.plan.PlannedRun;

/** Where a pass's runs go: the all-in-one job pool, or a queue in the distributed shape. */
@FunctionalInterface
public interface RunSink {
  /** Takes a run whose check was filed as queued. */
  void submit(PlannedRun run);

  /**
   * A run a stop dropped will not run again, its ref having moved on or been deleted: ends its
   * check where the stop left it queued. The all-in-one filed such checks cancelled as it stopped,
   * so by default nothing is done.
   */
  default void movedOn(String checkKey, String note) {}

  /**
   * Whether a run of check {@code checkKey} was handed on lately though the state does not say its
   * ref ran: a pass cut off (a replica killed, a partition moved) between handing runs on and
   * recording the ref's generation, whose next pass would otherwise run the same commit again.
   * Nothing is remembered by default: the all-in-one records both in one process.
   */
  default boolean handedOnLately(String checkKey) {
    return false;
  }

  /**
   * Whether the runs go to this process's job pool, whose reports file each check ({@link
   * dev.knotless.runner.engine.FiledChecks}): only then may a push hand on its last run while that
   * run's queued check is still being filed ({@link dev.knotless.runner.filing.FilingAhead}).
   */
  default boolean runsHere() {
    return false;
  }

  /** The sink of this process's job pool, {@code jobs} taking each run. */
  static RunSink here(java.util.function.Consumer<PlannedRun> jobs) {
    return new RunSink() {
      @Override
      public void submit(PlannedRun run) {
        jobs.accept(run);
      }

      @Override
      public boolean runsHere() {
        return true;
      }
    };
  }
}
