package dev.knotless.runner.exec;

/**
 * Runs one run's steps and returns what its check needs. The shell executor runs them as the
 * runner's own user on its host; the docker executor in a container of the run's own. Both keep the
 * same contract, so the engine and the distributed worker hold an {@code Executor} and never know
 * which.
 *
 * <p>The run's directory under {@code --work} and everything the steps started are gone when {@link
 * #run} returns: the caller files the check after, holding nothing of the run's. Failures of the
 * runner's own end the run as {@link RunOutcome.Errored}, with a message naming the cause, rather
 * than throwing. Implementations are thread-safe: one executor runs any number of runs at once,
 * each on its caller's thread.
 */
public interface Executor {

  /**
   * Runs {@code spec} to its end, blocking the calling thread meanwhile, and calls {@code
   * afterSteps} with the checkout once the steps ended and nothing of the run's still runs.
   */
  RunResult run(
      RunSpec spec, RunCancellation cancellation, RunListener listener, AfterSteps afterSteps);

  /** Runs {@code spec} with no after-steps hook. */
  default RunResult run(RunSpec spec, RunCancellation cancellation, RunListener listener) {
    return run(spec, cancellation, listener, AfterSteps.NONE);
  }

  /** Runs {@code spec} with no listener. */
  default RunResult run(RunSpec spec, RunCancellation cancellation) {
    return run(spec, cancellation, RunListener.NONE, AfterSteps.NONE);
  }

  /**
   * Removes what runs of this runner left behind and no live run owns (containers, networks);
   * called at start and on each sweep. The shell executor leaves nothing to sweep.
   */
  default void removeLeftovers() {}

  /** What this executor is called on the command line ({@code shell}, {@code docker}). */
  String name();
}
