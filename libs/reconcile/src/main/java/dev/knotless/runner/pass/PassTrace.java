package dev.knotless.runner.pass;

/**
 * Hears when a push's way to a running check reaches each of its stages, for a benchmark to see
 * where the time goes. Nothing in the runner reads it; the default, {@link #NONE}, does nothing, so
 * an untraced pass pays one call per stage.
 *
 * <p>Marks come from the event source's thread, the pass threads and the job threads, so an
 * implementation must be thread-safe and quick: it is called on the pass's own path.
 */
@FunctionalInterface
public interface PassTrace {

  /** The stages, in the order a push reaches them. */
  enum Stage {
    /** An event naming the repository arrived and rang its door. */
    FRAME,
    /** A pass of the repository began on a pass thread. */
    PASS,
    /** The repository record, its refs and its rerun requests were read. */
    SNAPSHOT,
    /**
     * The mirror holds the pushed commits (their packs indexed); the check that their history is
     * whole, and setting the mirror's refs, go on beside the reading of the workflows.
     */
    MIRROR,
    /**
     * A due commit's workflows and changed paths were read from the mirror, and its history found
     * whole.
     */
    WORKFLOWS,
    /**
     * A run's check was filed queued; for a push's last run in this process, its queued check's
     * write went out, just after the run was handed to its job ({@code FilingAhead}).
     */
    QUEUED,
    /** A run has its job and is about to file its check running. */
    JOB,
    /** A run's check was filed running. */
    RUNNING
  }

  /** Does nothing. */
  PassTrace NONE = (stage, repo, nanos) -> {};

  /**
   * The stage was reached.
   *
   * @param repo the repository, as {@code <owner did>/<repo key>}
   * @param nanos when, by {@link System#nanoTime()}
   */
  void reached(Stage stage, String repo, long nanos);

  /** Marks {@code stage} as reached now. */
  default void now(Stage stage, String repo) {
    if (this != NONE) {
      reached(stage, repo, System.nanoTime());
    }
  }
}
