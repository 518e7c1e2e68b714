package dev.knotless.atproto.identity;

import java.io.IOException;

/**
 * A handle or DID could not be resolved: nothing answered for it, or what answered is malformed or
 * does not agree (a DID document naming another DID, a handle pointing elsewhere). The message
 * names the identifier and what was wrong, and is meant for the user.
 */
public class IdentityException extends IOException {
  private static final long serialVersionUID = 1L;

  public IdentityException(String message) {
    super(message);
  }

  public IdentityException(String message, Throwable cause) {
    super(message, cause);
  }
}
