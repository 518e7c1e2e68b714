package dev.knotless.runner.exec;

import java.time.Instant;

/**
 * Follows a run as it goes, for the live-output sender and the run-events publisher. Every method
 * has a no-op default, so a listener overrides only what it needs.
 *
 * <p>Offsets are byte offsets into the run's log file, as written (masked): a follower can read the
 * file from an offset, or rebuild it from the pieces {@link #logWritten} hands it. The file holds
 * everything up to a {@link #stepStarted} or {@link #stepEnded} offset when the call comes. Calls
 * come from the executor's threads, one at a time and in log order, and must return quickly: the
 * run waits for them. A listener that throws is logged and does not stop the run.
 */
public interface RunListener {

  /** The listener that does nothing. */
  RunListener NONE = new RunListener() {};

  /**
   * A listener that hands {@code onLine} each whole line of the log as it is written (masked,
   * without its line end), the executor's own lines included.
   */
  static RunListener lines(java.util.function.Consumer<String> onLine) {
    return new LogLines(onLine);
  }

  /** A step's process started; its {@code ==>} line ends at {@code event.logOffset()}. */
  default void stepStarted(StepStarted event) {}

  /**
   * Bytes were written to the log at {@code offset}: every piece of it, the executor's own lines as
   * well as the steps' output, masked and in file order, so a follower can rebuild the log exactly
   * without reading the file. The array is the listener's to keep.
   */
  default void logWritten(long offset, byte[] bytes) {}

  /** A step ended (ran, was killed, cancelled or skipped); the log is {@code logOffset} long. */
  default void stepEnded(StepResult result, long logOffset) {}

  /** The run ended; the log is complete. Called before the run's directory is removed. */
  default void runEnded(RunResult result) {}

  /**
   * A step that started.
   *
   * @param index the step's position in the run, from 0
   * @param name the step's name
   * @param at when it started
   * @param pid the process id of its shell, also its process group's id
   * @param logOffset where its output starts in the log
   */
  record StepStarted(int index, String name, Instant at, long pid, long logOffset) {}
}
