package dev.knotless.runner.exec;

import java.util.Locale;

/** How a step ended. Its {@link #wire()} form is what a check record holds. */
public enum StepStatus {
  /** It ran and exited 0. */
  SUCCESS,
  /** It exited non-zero, or was killed at its time limit. */
  FAILURE,
  /** It did not run: its {@code on.refs} did not match, or an earlier step ended the run. */
  SKIPPED,
  /** It was killed because the run was cancelled. */
  CANCELLED;

  /** The lowercase name, as in a check record: {@code success}, {@code failure}, ... */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }
}
