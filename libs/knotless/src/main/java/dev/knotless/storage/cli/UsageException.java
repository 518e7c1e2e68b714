package dev.knotless.storage.cli;

/**
 * Arguments of an owner tool that cannot be used together or do not parse; the message says which.
 * The command line shows it with the command's usage and exits 2.
 */
public final class UsageException extends IllegalArgumentException {
  public UsageException(String message) {
    super(message);
  }
}
