package dev.knotless.runner.schedule;

/**
 * The class a waiting run is ranked in, earliest first: every waiting run of a class is ranked
 * before any of the next. The order of the constants is the rank order.
 */
public enum RunClass {
  /** Pushes to the default branch, and the merge-queue batch that lands next. */
  MAIN,
  /** Pull runs, and pushes to refs other than the default branch. */
  OTHER,
  /**
   * Pulls not in the queue where this runner lands the queue or runs pulls alone, and a batch built
   * ahead of one still checking.
   */
  LATER,
  /** Runs asked for by name: after every other waiting run, however old. */
  ASKED;

  /** Whether runs of this class count against {@code --pull-jobs} (every class but MAIN). */
  public boolean sharesPullJobs() {
    return this != MAIN;
  }

  /** The lowercase name, for log lines and metric tags. */
  public String tag() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
