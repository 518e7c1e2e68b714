package dev.knotless.runner.schedule;

/** A {@code --paused} file that was read but is not an object of owner DIDs to reasons. */
public final class PausedFileException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** An error whose message names the file and what is wrong with it. */
  public PausedFileException(String message) {
    super(message);
  }
}
