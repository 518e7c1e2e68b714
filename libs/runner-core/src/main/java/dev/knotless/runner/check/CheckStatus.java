package dev.knotless.runner.check;

import java.util.Collection;
import java.util.Locale;

/** A check's status, as its record says it. */
public enum CheckStatus {
  /** Filed, waiting for a job. */
  QUEUED,
  /** Running its steps. */
  RUNNING,
  /** Every step passed or was skipped. */
  SUCCESS,
  /** A step failed. */
  FAILURE,
  /** The runner could not run it: a workflow that does not parse, a fault of the runner's own. */
  ERROR,
  /** Cancelled, for any reason: a newer commit, a stop, a pull that moved. */
  CANCELLED;

  /** The spelling in the record. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** True once the check can change no more. */
  public boolean ended() {
    return this != QUEUED && this != RUNNING;
  }

  /**
   * Reads the record's spelling.
   *
   * @throws IllegalArgumentException naming the value if it is not one
   */
  public static CheckStatus fromWire(String s) {
    for (CheckStatus v : values()) {
      if (v.wire().equals(s)) {
        return v;
      }
    }
    throw new IllegalArgumentException("unknown check status \"" + s + "\"");
  }

  /**
   * The status a run's steps add up to: cancelled if a step was cancelled, else failure if a step
   * failed, else success (skipped steps pass). A fault of the runner's own is {@link #ERROR}
   * whatever the steps say.
   */
  public static CheckStatus of(Collection<StepResult> steps, boolean runnerFault) {
    if (runnerFault) {
      return ERROR;
    }
    if (steps.stream().anyMatch(s -> s.status() == StepResult.Status.CANCELLED)) {
      return CANCELLED;
    }
    if (steps.stream().anyMatch(s -> s.status() == StepResult.Status.FAILURE)) {
      return FAILURE;
    }
    return SUCCESS;
  }
}
