package dev.knotless.runner.exec;

import java.nio.file.Path;

/**
 * An extension point of the executor: called once a run's steps have ended and its log is read,
 * with the checkout still in place, just before the run's directory is removed. It may look at the
 * checkout (a write-back reads {@code git status} there) and return the result changed, say with
 * its outcome failed and a line added to the log. What it adds to the log is not masked, so it must
 * never add a secret. It runs on the run's thread, holding the run's job. It should not throw: a
 * runtime exception ends the run as the runner's own error.
 */
@FunctionalInterface
public interface AfterSteps {

  /** Leaves the result as it is. */
  AfterSteps NONE = (checkout, result) -> result;

  /**
   * @param checkout the run's checkout, at the commit with whatever the steps left
   * @param result what the steps left for the check
   * @return the result to return to the caller
   */
  RunResult apply(Path checkout, RunResult result);
}
