package dev.knotless.runner.secrets;

/**
 * The secrets file cannot be read or is not as the format says. The message names the file and the
 * problem and never holds a secret's value. It carries no cause: a parser's own message can quote
 * the file, and a logged stack trace would print it. A run that needs secrets then files its check
 * as error.
 */
public final class SecretsFileException extends Exception {

  private static final long serialVersionUID = 1L;

  /** A problem described by {@code message}, which must hold no value. */
  public SecretsFileException(String message) {
    super(message);
  }
}
