package dev.knotless.runner.reconcile;

import dev.knotless.runner.schedule.RunClass;

/** Which class a run waits in, from what it checks. Stateless. */
public final class RunClasses {
  private RunClasses() {}

  /** A push: MAIN on the repository's default branch, OTHER on any other ref. */
  public static RunClass forPush(String ref, RepoView repo) {
    return ref.equals(repo.defaultRef()) ? RunClass.MAIN : RunClass.OTHER;
  }

  /**
   * A pull's run: OTHER, or LATER for a pull not in the queue where this runner lands the queue or
   * runs pulls alone ({@code --pulls-only}).
   */
  public static RunClass forPull(boolean landsQueueOrPullsOnly) {
    return landsQueueOrPullsOnly ? RunClass.LATER : RunClass.OTHER;
  }

  /** A merge-queue batch: MAIN for the batch that lands next, LATER for one built ahead. */
  public static RunClass forBatch(boolean landsNext) {
    return landsNext ? RunClass.MAIN : RunClass.LATER;
  }

  /** A run asked for by name: after every other waiting run. */
  public static RunClass forAsked() {
    return RunClass.ASKED;
  }
}
