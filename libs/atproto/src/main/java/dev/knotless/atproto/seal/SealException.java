package dev.knotless.atproto.seal;

/** A sealed value that cannot be opened, or a key that cannot be read. Never holds a value. */
public final class SealException extends Exception {
  public SealException(String message) {
    super(message);
  }
}
