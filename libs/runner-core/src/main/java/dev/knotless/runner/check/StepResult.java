package dev.knotless.runner.check;

import java.time.Instant;
import java.util.Locale;

/**
 * One step's result in a check record.
 *
 * @param name the step's name
 * @param status how it ended
 * @param startedAt when it started, or null if it never did (skipped, cancelled while waiting)
 * @param endedAt when it ended, or null if it never started
 * @param note why it was skipped or cancelled, or null
 */
public record StepResult(
    String name, Status status, Instant startedAt, Instant endedAt, String note) {

  /** How a step ended. */
  public enum Status {
    /** It exited 0. */
    SUCCESS,
    /** It exited otherwise, or hit its time limit. */
    FAILURE,
    /** It did not run: a step before it failed, its on.refs did not match, or paths left it out. */
    SKIPPED,
    /** It was killed, or never started, because the run was cancelled. */
    CANCELLED;

    /** The spelling in the record. */
    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Reads the record's spelling.
     *
     * @throws IllegalArgumentException naming the value if it is not one
     */
    public static Status fromWire(String s) {
      for (Status v : values()) {
        if (v.wire().equals(s)) {
          return v;
        }
      }
      throw new IllegalArgumentException("unknown step status \"" + s + "\"");
    }
  }
}
