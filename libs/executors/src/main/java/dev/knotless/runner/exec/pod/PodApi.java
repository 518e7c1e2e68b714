package dev.knotless.runner.exec.pod;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;

/**
 * What the pod executor needs of the Kubernetes API server, and nothing more: make a pod, wait for
 * it to run, exec into it, delete it, list the runner's pods. The implementation ({@code
 * runtime/pods}, on Fabric8) is bound to one namespace and decides nothing: every choice is made in
 * this package. Every exchange with a pod goes through the API server; the runner never opens a
 * connection to a pod's address. Implementations are thread-safe.
 */
public interface PodApi {

  /** Creates {@code pod} in the namespace, as {@link RunPod} describes it field for field. */
  void create(RunPod pod) throws IOException;

  /**
   * Waits up to {@code limit} for pod {@code name}'s container to run.
   *
   * @throws NotRunning when it will not (an image that cannot be pulled, a pod that failed or
   *     vanished, the limit passed), its message naming why for the check's log
   */
  void awaitRunning(String name, Duration limit)
      throws NotRunning, IOException, InterruptedException;

  /**
   * Starts {@code command} in pod {@code name}'s one container through the exec subresource, with
   * stdin and stdout attached (stderr is dropped: the launcher's scripts send what matters to
   * stdout).
   */
  Exec exec(String name, List<String> command) throws IOException;

  /**
   * The events the API server holds on pod {@code name} (the kubelet's {@code Pulling}, {@code
   * Pulled}, ...), in the order it lists them; empty by default, as where no kubelet records any.
   */
  default List<ImagePulls.Event> events(String name) throws IOException {
    return List.of();
  }

  /** Deletes pod {@code name} at once (no grace); a pod already gone is not an error. */
  void delete(String name) throws IOException;

  /** The pods whose {@link RunPod#RUNNER_LABEL} is {@code runnerLabel}, listed afresh. */
  List<Listed> list(String runnerLabel) throws IOException;

  /**
   * The same pods as the API server's watch last told them, without a request: what a gauge reads
   * between sweeps. By default a fresh {@link #list}.
   */
  default List<Listed> watched(String runnerLabel) throws IOException {
    return list(runnerLabel);
  }

  /**
   * Has {@code lost} called once, from another thread, with why (a {@link PodState#lost} message),
   * as soon as the API server's watch says pod {@code name} will run nothing more: deleted, ended,
   * or on a node that stopped answering. Closing the result stops it. By default nothing is
   * watched, and a lost pod is found only when its execs fail.
   */
  default Watching whenLost(String name, java.util.function.Consumer<String> lost) {
    return () -> {};
  }

  /** A {@link #whenLost} registration; closing it never throws. */
  @FunctionalInterface
  interface Watching extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * A pod found by its runner label.
   *
   * @param name its name
   * @param runnerDid its {@link RunPod#RUNNER_ANNOTATION}, or null if it has none
   * @param runKey its {@link RunPod#RUN_KEY_ANNOTATION}, or null if it has none
   * @param phase its phase ({@code Pending}, {@code Running}, ...), or null before it has one
   */
  record Listed(String name, String runnerDid, String runKey, String phase) {}

  /** Why a pod will not run, for the check's log. */
  final class NotRunning extends Exception {
    private final boolean imagePull;

    public NotRunning(String message) {
      this(message, false);
    }

    /** Why the pod will not run; {@code imagePull} when its image could not be had. */
    public NotRunning(String message, boolean imagePull) {
      super(message);
      this.imagePull = imagePull;
    }

    /** Whether the pod will not run because its image could not be had. */
    public boolean imagePull() {
      return imagePull;
    }
  }

  /** One exec. Its streams are used by one thread each; {@link #close} may come from any. */
  interface Exec extends AutoCloseable {

    /** The command's stdin; a flush sends what was written. */
    OutputStream stdin();

    /** The command's stdout; ends when the command ends or the connection drops. */
    InputStream stdout();

    /**
     * The exit status the API server reported, waiting up to {@code limit}.
     *
     * @throws IOException when none came (the connection dropped, the limit passed)
     */
    int exitCode(Duration limit) throws IOException, InterruptedException;

    /** Ends the exec's connection; the command itself is not signalled. Never throws. */
    @Override
    void close();
  }
}
