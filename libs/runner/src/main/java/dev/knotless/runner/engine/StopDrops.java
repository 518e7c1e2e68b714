package dev.knotless.runner.engine;

import dev.knotless.runner.plan.PlannedRun;

/**
 * What becomes of the runs a stop drops before they started ({@link Jobs#stop}): filed cancelled or
 * left for another worker, and recorded by the caller to run again.
 */
public interface StopDrops {
  /**
   * Whether a dropped run's check is filed cancelled (the all-in-one runner), or left as it is for
   * another worker to run (a replica of the distributed shape).
   */
  boolean fileCancelled();

  /**
   * A run the stop dropped before it started, or a run asked for by name it cut off: the caller
   * records it to run again. Called once per run, outside the jobs' lock.
   */
  void dropped(PlannedRun run);

  /**
   * A running run asked for by name that the stop is about to cancel; by default it is recorded as
   * {@link #dropped} is. Called once per run, before its cancel, outside the jobs' lock.
   */
  default void cutOff(PlannedRun run) {
    dropped(run);
  }
}
