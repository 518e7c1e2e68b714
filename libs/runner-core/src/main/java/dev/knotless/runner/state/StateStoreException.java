package dev.knotless.runner.state;

/** The state could not be stored; the change it carried was not applied. */
public final class StateStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An error naming where the state is kept and why it could not be stored. */
  public StateStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
