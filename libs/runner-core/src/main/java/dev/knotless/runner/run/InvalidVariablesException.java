package dev.knotless.runner.run;

/**
 * The variables of a run asked for by name include names a step cannot be given. The message names
 * each and why; the run's check is filed as error with it.
 */
public final class InvalidVariablesException extends Exception {

  private static final long serialVersionUID = 1L;

  /** A problem described by {@code message}. */
  public InvalidVariablesException(String message) {
    super(message);
  }
}
