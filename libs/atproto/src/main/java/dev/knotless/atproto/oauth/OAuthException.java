package dev.knotless.atproto.oauth;

import java.io.IOException;

/**
 * An OAuth login, refresh or logout that failed, with a message naming the cause and, when the
 * server gave one, its error code ({@code invalid_grant}, {@code access_denied}, ...).
 */
public final class OAuthException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String error;

  public OAuthException(String message) {
    this(message, null, null);
  }

  public OAuthException(String message, String error, Throwable cause) {
    super(message, cause);
    this.error = error;
  }

  /** The server's error code, or null. */
  public String error() {
    return error;
  }

  /**
   * True when the session cannot go on and only a new login helps: its refresh token is revoked,
   * expired or already used ({@code invalid_grant}), or its scope lacks what knotless now needs.
   */
  public boolean loginAgain() {
    return "invalid_grant".equals(error) || "login_again".equals(error);
  }
}
