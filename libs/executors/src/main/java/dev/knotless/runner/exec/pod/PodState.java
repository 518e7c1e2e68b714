package dev.knotless.runner.exec.pod;

import java.time.Duration;
import java.util.Set;

/**
 * What the API server says of a run's pod while the runner waits for it to run, and what that means
 * for the run: the one place that decides when a pending pod has failed. Immutable.
 *
 * @param exists false once the pod is gone (deleted, evicted and removed)
 * @param phase the pod's phase ({@code Pending}, {@code Running}, ...), or null while it has none
 * @param waitingReason why its container waits ({@code ErrImagePull}, ...), or null
 * @param message the message that goes with the reason, or null
 */
public record PodState(boolean exists, String phase, String waitingReason, String message) {

  /** Reasons a container waits that mean its image cannot be had. */
  public static final Set<String> PULL_ERRORS =
      Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull");

  /** Reasons a container waits that no wait will cure. */
  public static final Set<String> CONFIG_ERRORS =
      Set.of("CreateContainerConfigError", "CreateContainerError", "RunContainerError");

  /** What the runner does about a pod in this state. */
  public sealed interface Verdict {
    /** The container runs: steps can start. */
    record Running() implements Verdict {}

    /** Still starting: wait on. */
    record Waiting() implements Verdict {}

    /** It will not run; the message says why, for the check's log. */
    record Failed(String message) implements Verdict {}
  }

  /**
   * The verdict on pod {@code pod} of image {@code image}, whose image has been failing to pull for
   * {@code pullFailingFor} (zero if it is not): a pull error fails the run once it has lasted
   * {@code pullGrace}, since a registry may answer the kubelet's next try.
   */
  public Verdict verdict(String pod, String image, Duration pullFailingFor, Duration pullGrace) {
    if (!exists) {
      return new Verdict.Failed("pod " + pod + " vanished before it ran");
    }
    if ("Running".equals(phase) && waitingReason == null) {
      return new Verdict.Running();
    }
    if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
      return new Verdict.Failed(
          "pod " + pod + " ended before its steps started (" + phase + why() + ")");
    }
    if (waitingReason != null && PULL_ERRORS.contains(waitingReason)) {
      return pullFailingFor.compareTo(pullGrace) >= 0
          ? new Verdict.Failed("could not pull image " + image + ": " + waitingReason + why())
          : new Verdict.Waiting();
    }
    if (waitingReason != null && CONFIG_ERRORS.contains(waitingReason)) {
      return new Verdict.Failed("pod " + pod + " cannot start: " + waitingReason + why());
    }
    return new Verdict.Waiting();
  }

  /**
   * Why pod {@code pod}, whose steps have started, will run nothing more, as the API server's watch
   * tells it; null while it may run on. The message starts {@code lost pod <name>: }, as one for a
   * pod whose execs fail does.
   *
   * @param exists false once the pod is gone from the API server
   * @param phase its phase, or null
   * @param deleting whether it carries a deletion timestamp (deleted or evicted, not yet gone)
   * @param reason its status's reason ({@code NodeLost}, {@code Evicted}, ...), or null
   */
  public static String lost(
      String pod, boolean exists, String phase, boolean deleting, String reason) {
    String why = reason == null || reason.isBlank() ? "" : " (" + reason + ")";
    if (!exists) {
      return "lost pod " + pod + ": it was deleted";
    }
    if (deleting) {
      return "lost pod " + pod + ": it is being deleted" + why;
    }
    if ("Unknown".equals(phase)) {
      return "lost pod "
          + pod
          + ": its node stopped answering (phase Unknown"
          + (why.isEmpty() ? "" : ", " + reason)
          + ")";
    }
    if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
      return "lost pod " + pod + ": it ended (" + phase + why + ")";
    }
    return null;
  }

  /** True if the container waits because its image cannot be had. */
  public boolean pullFailing() {
    return waitingReason != null && PULL_ERRORS.contains(waitingReason);
  }

  private String why() {
    return message == null || message.isBlank() ? "" : ": " + message;
  }
}
