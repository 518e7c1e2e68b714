package dev.knotless.runner.schedule;

import java.time.Duration;

/**
 * A run to start now: it holds its job (and its turn, if it needs one) from this moment until
 * {@link Scheduler#finished} (the turn until {@link Scheduler#fileEnded}).
 *
 * @param request the run
 * @param waited how long it waited since it was submitted
 * @param pastAllowance whether its owner is past the allowance, so the run's log must begin by
 *     saying it goes one at a time, and how long it waited
 */
public record Admission(RunRequest request, Duration waited, boolean pastAllowance) {

  /** The run's id. */
  public String runId() {
    return request.runId();
  }
}
