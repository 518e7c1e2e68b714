package dev.knotless.runner.schedule;

/**
 * What the caller must do after {@link Scheduler#submit}: values to act on in order, never side
 * effects of the scheduler itself.
 */
public sealed interface Decision {

  /** The run this decision is about. */
  String runId();

  /**
   * Cancel a run. When {@code running} is true, kill its step and process group; the job stays held
   * until {@link Scheduler#finished} is called for it. When false, file its check as cancelled
   * without starting it.
   */
  record Cancel(String runId, boolean running, CancelReason reason) implements Decision {}

  /**
   * The run took its workflow's turn on the ref or pull as it was filed (superseded: finish): it is
   * kept from now on, and a newer commit's run waits for it instead of cancelling it.
   */
  record Kept(String runId) implements Decision {}
}
