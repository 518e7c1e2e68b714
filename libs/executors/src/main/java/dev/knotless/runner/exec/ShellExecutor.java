package dev.knotless.runner.exec;

import dev.knotless.runner.run.StepEnvironment;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The shell executor: runs one run's steps as {@code sh -ec <script>} in a fresh checkout under
 * {@code --work}, each step the leader of its own process group, and returns what the check needs.
 *
 * <p>Per run it makes a directory under the work root holding {@code checkout/} (a clone of the
 * mirror at the commit, objects hard-linked), {@code log} and {@code outputs/} (the steps' {@code
 * KNOTLESS_RUN_OUTPUTS}), and removes it when the run ends, whether it passed, failed, was
 * cancelled or hit an error. Every line written to the log is masked first. A step that fails or is
 * killed skips the rest; a cancel through {@link RunCancellation} kills the running step's group at
 * once. See docs/executor.md.
 *
 * <p>Steps run as the runner's own user. Thread-safe: one executor runs any number of runs at once,
 * each on its caller's thread ({@link #run} blocks until the run ends).
 */
public final class ShellExecutor implements Executor {

  /**
   * The runner's own variables a step sees besides the run's environment, when they are set:
   * runner-core's {@link StepEnvironment#SHELL_HOST_VARIABLES}, so the list is decided in one
   * place.
   */
  public static final List<String> INHERITED = StepEnvironment.SHELL_HOST_VARIABLES;

  /** The variable naming the directory whose files become the check's outputs. */
  public static final String OUTPUTS_VARIABLE = "KNOTLESS_RUN_OUTPUTS";

  private final RunDriver driver;
  private final Map<String, String> inherited;

  /** An executor whose runs' directories go under {@code workRoot} ({@code --work}). */
  public ShellExecutor(Path workRoot) {
    this(workRoot, Clock.systemUTC(), System.getenv());
  }

  /**
   * As {@link #ShellExecutor(Path)}, with the clock that stamps steps and the process environment
   * the {@link #INHERITED} variables are taken from.
   */
  public ShellExecutor(Path workRoot, Clock clock, Map<String, String> processEnv) {
    this.driver = new RunDriver(workRoot, clock, true);
    this.inherited = Map.copyOf(StepEnvironment.hostVariables(processEnv));
  }

  @Override
  public String name() {
    return "shell";
  }

  /**
   * Runs {@code spec} to its end and returns its result; blocks the calling thread meanwhile.
   * Failures of the runner's own (no room for the directory, a checkout that fails, a log that
   * cannot be written) end the run as {@link RunOutcome.Errored} rather than throwing. The run's
   * directory is gone when this returns; {@code afterSteps} sees the checkout just before.
   */
  @Override
  public RunResult run(
      RunSpec spec, RunCancellation cancellation, RunListener listener, AfterSteps afterSteps) {
    return driver.run(
        spec, cancellation, listener, afterSteps, (s, paths) -> new ShellHost(s, paths, inherited));
  }
}
