package dev.knotless.runner.exec;

import dev.knotless.runner.run.StepEnvironment;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
public final class ShellExecutor {

  /**
   * The runner's own variables a step sees besides the run's environment, when they are set:
   * runner-core's {@link StepEnvironment#SHELL_HOST_VARIABLES}, so the list is decided in one
   * place.
   */
  public static final List<String> INHERITED = StepEnvironment.SHELL_HOST_VARIABLES;

  /** The variable naming the directory whose files become the check's outputs. */
  public static final String OUTPUTS_VARIABLE = "KNOTLESS_RUN_OUTPUTS";

  private static final Logger LOG = LoggerFactory.getLogger(ShellExecutor.class);

  private final Path workRoot;
  private final Clock clock;
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
    this.workRoot = Objects.requireNonNull(workRoot, "work root").toAbsolutePath();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.inherited = Map.copyOf(StepEnvironment.hostVariables(processEnv));
  }

  /** Runs {@code spec} with no listener. */
  public RunResult run(RunSpec spec, RunCancellation cancellation) {
    return run(spec, cancellation, RunListener.NONE);
  }

  /**
   * Runs {@code spec} to its end and returns its result; blocks the calling thread meanwhile.
   * Failures of the runner's own (no room for the directory, a checkout that fails, a log that
   * cannot be written) end the run as {@link RunOutcome.Errored} rather than throwing. The run's
   * directory is gone when this returns.
   */
  public RunResult run(RunSpec spec, RunCancellation cancellation, RunListener listener) {
    return run(spec, cancellation, listener, AfterSteps.NONE);
  }

  /**
   * As {@link #run(RunSpec, RunCancellation, RunListener)}, calling {@code afterSteps} with the
   * checkout once the steps end and before the run's directory is removed (see {@link AfterSteps}).
   * Not called when the directory could not be made.
   */
  public RunResult run(
      RunSpec spec, RunCancellation cancellation, RunListener listener, AfterSteps afterSteps) {
    Objects.requireNonNull(spec, "run spec");
    Objects.requireNonNull(afterSteps, "after steps");
    Objects.requireNonNull(cancellation, "cancellation");
    Objects.requireNonNull(listener, "listener");
    RunDirectory dir;
    try {
      dir = RunDirectory.create(workRoot);
    } catch (IOException e) {
      String message = "could not make the run's directory under " + workRoot + ": " + e;
      return ShellRun.errorWithoutLog(spec, clock, message, listener);
    }
    try {
      RunResult result =
          new ShellRun(spec, dir, cancellation, listener, clock, stepEnv(spec, dir)).run();
      // The extension point sees the checkout before it goes (a write-back reads git status).
      return afterSteps.apply(dir.checkout(), result);
    } finally {
      try {
        dir.delete();
      } catch (IOException e) {
        LOG.warn("could not remove the run's directory {}: {}", dir.root(), e.toString());
      }
    }
  }

  private Map<String, String> stepEnv(RunSpec spec, RunDirectory dir) {
    Map<String, String> env = new LinkedHashMap<>(inherited);
    env.putAll(spec.env());
    env.put(OUTPUTS_VARIABLE, dir.outputs().toString());
    return env;
  }
}
