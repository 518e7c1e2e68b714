package dev.knotless.runner.exec;

import java.time.Instant;
import java.util.Objects;

/**
 * What became of one step. Immutable and thread-safe.
 *
 * @param name the step's name
 * @param status how it ended
 * @param started when it started (for a skipped step, when it was passed over)
 * @param ended when it ended (for a skipped step, the same as {@code started})
 * @param exitCode the shell's exit status; 128 plus the signal's number for one killed by a signal
 *     (137 for SIGKILL); {@link #NO_EXIT} for a step that did not run
 * @param note why it was skipped, killed or cancelled, as in the log; empty otherwise
 */
public record StepResult(
    String name, StepStatus status, Instant started, Instant ended, int exitCode, String note) {

  /** The exit code of a step that did not run. */
  public static final int NO_EXIT = -1;

  /** Checks that nothing is null. */
  public StepResult {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(started, "started");
    Objects.requireNonNull(ended, "ended");
    Objects.requireNonNull(note, "note");
  }

  static StepResult skipped(String name, Instant at, String note) {
    return new StepResult(name, StepStatus.SKIPPED, at, at, NO_EXIT, note);
  }
}
