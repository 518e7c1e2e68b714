package dev.knotless.runner.exec;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where one run's steps execute: the runner's host for the shell executor, a container for the
 * docker executor. The run loop ({@link RunDriver}) owns the order of things: it makes the
 * directory and the checkout, then {@link #open}s the host, starts each step here, and {@link
 * #close}s the host as soon as the last step ends, before outputs are read and before the caller
 * files anything. One host serves one run, on that run's thread; {@link Step#kill} may come from
 * any thread.
 */
public interface StepHost extends AutoCloseable {

  /** Makes a host for one run; called once the checkout is made. */
  @FunctionalInterface
  interface Factory {
    StepHost create(RunSpec spec, RunPaths paths);
  }

  /** Why the host could not be made ready; the message names the cause, for the check's log. */
  final class StartFailed extends Exception {
    public StartFailed(String message) {
      super(message);
    }

    public StartFailed(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Gets ready to run steps, within {@code limit} ({@code --step-timeout}): a container is pulled,
   * made and started here. Lines for the run's log go to {@code log} (masked by the caller).
   *
   * @throws StartFailed when the steps cannot run; the run ends as an error with its message
   */
  void open(Consumer<String> log, Duration limit) throws StartFailed, InterruptedException;

  /**
   * The environment a step sees, from the run's ({@link RunSpec#env}): the shell adds a few of the
   * runner's own variables, the docker executor none; both set {@code KNOTLESS_RUN_OUTPUTS}.
   */
  Map<String, String> stepEnvironment(Map<String, String> runEnv);

  /**
   * Ends what the last step left running, for a step given secrets in a workflow with shared steps;
   * the count of processes ended. By default nothing: the shell executor already kills a step's
   * leftovers when it ends ({@link Step#ended}).
   */
  default int endLeftovers() throws IOException {
    return 0;
  }

  /**
   * Brings what the steps left in {@code KNOTLESS_RUN_OUTPUTS} into the run's outputs directory
   * ({@link RunPaths#outputs}), for a host whose steps write somewhere else (a pod's own disk).
   * Called once the last step ended and before {@link #close}, only for a run whose outputs are
   * read: the run loop then applies the same rules to that directory whatever the host. By default
   * nothing: the shell's and a container's steps write the directory itself.
   *
   * @throws IOException when the outputs cannot be brought; the run ends as an error, as when the
   *     directory cannot be read
   */
  default void collectOutputs() throws IOException, InterruptedException {}

  /**
   * As {@link #collectOutputs()}, knowing how the steps ended: a host that copies more out of where
   * the steps ran when they passed (a pod's caches) does so here.
   */
  default void collectOutputs(RunOutcome outcome) throws IOException, InterruptedException {
    collectOutputs();
  }

  /** Starts one step's {@code sh -ec <script>} with exactly {@code env}. */
  Step start(ExecStep step, Map<String, String> env) throws IOException;

  /**
   * Ends everything the run started and frees what it held (the container is removed). Called once
   * the steps ended, whatever happened; must not throw.
   */
  @Override
  void close();

  /** One step, started. */
  interface Step {

    /** The process id the listener is told: the shell's on the host, the exec's for docker. */
    long pid();

    /** Stdout and stderr, merged; ends when the step's output ends. */
    InputStream output();

    /**
     * Waits up to {@code limit} for the step to end; true if it did.
     *
     * @throws IOException when the host can no longer tell (the docker daemon went away)
     */
    boolean waitFor(Duration limit) throws IOException, InterruptedException;

    /** Waits for the step to end however long: called only after {@link #kill}, or once ended. */
    int waitForExit() throws IOException, InterruptedException;

    /**
     * Kills the step and everything it started, at once, from any thread: a timeout or a cancel.
     * Must not throw.
     */
    void kill();

    /**
     * Called when the step ended on its own, before its output is drained. The shell executor kills
     * what it left in the background; a container keeps it for the next step.
     */
    void ended();

    /** What the log should say of an exit the host knows more about (killed for memory, say). */
    default Optional<String> exitNote(int exit) {
      return Optional.empty();
    }
  }
}
