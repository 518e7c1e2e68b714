package dev.knotless.runner.schedule;

/**
 * Why the scheduler, or its caller, cancels a run. The check record says cancelled for all of them;
 * the reason goes to the log.
 */
public enum CancelReason {
  /** A newer commit's run of the same workflow on the same ref or pull arrived. */
  SUPERSEDED,
  /** A run asked for by name at the same commit replaces it, as both would file one check. */
  ASKED_AGAIN,
  /** Its pull moved to another head or base, closed, or lost a branch (kept runs too). */
  PULL_MOVED,
  /** Its merge-queue batch was dropped. */
  BATCH_DROPPED,
  /** The runner is stopping. */
  STOP;
}
