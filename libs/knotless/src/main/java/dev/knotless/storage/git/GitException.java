package dev.knotless.storage.git;

import java.io.IOException;

/** A git command that failed; the message names the command, its exit code and git's stderr. */
public final class GitException extends IOException {
  private final int exitCode;

  public GitException(String message, int exitCode) {
    super(message);
    this.exitCode = exitCode;
  }

  /** git's exit code, or -1 when git could not be started. */
  public int exitCode() {
    return exitCode;
  }
}
