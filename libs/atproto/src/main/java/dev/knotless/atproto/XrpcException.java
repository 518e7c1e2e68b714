package dev.knotless.atproto;

import java.io.IOException;
import java.time.Instant;
import java.util.Optional;

/**
 * A failed XRPC call, with what the server said. Callers branch on {@link #kind()} (or the {@link
 * #retryable()} and {@link #tooLarge()} shortcuts) instead of matching message text.
 *
 * <p>{@link #status()} is 0 when no HTTP status came back (connection refused, reset, timeout).
 * Immutable and thread-safe.
 */
public final class XrpcException extends IOException {

  /** What kind of failure this is, as far as a caller needs to tell them apart. */
  public enum Kind {
    /** 400 {@code RecordNotFound}: the record is not there. */
    RECORD_NOT_FOUND,
    /** 400 {@code InvalidSwap}: the record (or commit) was not at the CID the write named. */
    INVALID_SWAP,
    /** The body was too large: 413, {@code BlobTooLarge} or {@code PayloadTooLargeError}. */
    TOO_LARGE,
    /** 429: a rate limit; {@link #rateLimitReset()} says when it lets calls in again. */
    RATE_LIMITED,
    /** 401 or 403, or a token the server refused. */
    AUTH,
    /** Any other 4xx. */
    BAD_REQUEST,
    /** 5xx. The reference PDS answers a create over an existing record with 500. */
    SERVER_ERROR,
    /** No HTTP status at all: the server could not be reached or the connection broke. */
    NO_STATUS
  }

  private final String method;
  private final int status;
  private final String error;
  private final String serverMessage;
  private final Instant rateLimitReset;

  public XrpcException(
      String method, int status, String error, String serverMessage, Instant rateLimitReset) {
    this(method, status, error, serverMessage, rateLimitReset, null);
  }

  public XrpcException(
      String method,
      int status,
      String error,
      String serverMessage,
      Instant rateLimitReset,
      Throwable cause) {
    super(describe(method, status, error, serverMessage), cause);
    this.method = method;
    this.status = status;
    this.error = error;
    this.serverMessage = serverMessage;
    this.rateLimitReset = rateLimitReset;
  }

  /** A failure with no HTTP status, such as a refused connection. */
  public static XrpcException noStatus(String method, Throwable cause) {
    return new XrpcException(method, 0, null, String.valueOf(cause.getMessage()), null, cause);
  }

  private static String describe(String method, int status, String error, String message) {
    StringBuilder b = new StringBuilder(method).append(": ");
    if (status == 0) {
      return b.append("no response (").append(message).append(')').toString();
    }
    b.append(status);
    if (error != null) {
      b.append(' ').append(error);
    }
    if (message != null && !message.isEmpty()) {
      b.append(": ").append(message);
    }
    return b.toString();
  }

  /** The XRPC method (NSID) that failed. */
  public String method() {
    return method;
  }

  /** HTTP status, or 0 when none came back. */
  public int status() {
    return status;
  }

  /** The XRPC error name from the body, or null. */
  public String error() {
    return error;
  }

  /** The server's message from the body, or null. */
  public String serverMessage() {
    return serverMessage;
  }

  /** When a rate limit lets calls in again, from {@code RateLimit-Reset} (epoch seconds). */
  public Optional<Instant> rateLimitReset() {
    return Optional.ofNullable(rateLimitReset);
  }

  /** The kind of failure. */
  public Kind kind() {
    if (status == 0) {
      return Kind.NO_STATUS;
    }
    if (tooLarge()) {
      return Kind.TOO_LARGE;
    }
    if (status == 429) {
      return Kind.RATE_LIMITED;
    }
    if ("RecordNotFound".equals(error)) {
      return Kind.RECORD_NOT_FOUND;
    }
    if ("InvalidSwap".equals(error)) {
      return Kind.INVALID_SWAP;
    }
    if (status == 401
        || status == 403
        || "ExpiredToken".equals(error)
        || "InvalidToken".equals(error)) {
      return Kind.AUTH;
    }
    if (status >= 500) {
      return Kind.SERVER_ERROR;
    }
    return Kind.BAD_REQUEST;
  }

  /**
   * True when the server says the account is not there: {@code RepoNotFound}, a deactivated,
   * taken-down or suspended repository, or the reference PDS's {@code InvalidRequest} for a DID it
   * does not host ("Could not find repo", "Could not find user", and a bare "Could not locate
   * record", which it answers only for a repository it does not hold). The account may have moved
   * to another PDS, so a cached identity naming this one is stale.
   */
  public boolean accountNotHere() {
    if (status < 400 || status >= 500 || error == null) {
      return false;
    }
    if (java.util.Set.of(
            "RepoNotFound",
            "RepoDeactivated",
            "RepoTakendown",
            "RepoSuspended",
            "AccountNotFound",
            "AccountDeactivated",
            "AccountTakedown")
        .contains(error)) {
      return true;
    }
    String m = serverMessage == null ? "" : serverMessage;
    return "InvalidRequest".equals(error)
        && (m.startsWith("Could not find repo")
            || m.startsWith("Could not find user")
            || m.equals("Could not locate record"));
  }

  /** True when a DPoP-bound request was refused for want of the server's newest nonce. */
  public boolean useDpopNonce() {
    return "use_dpop_nonce".equals(error);
  }

  /**
   * True when the server refused the access token as expired or no longer valid, which one refresh
   * may cure: {@code ExpiredToken} and {@code InvalidToken} from a password session, {@code
   * invalid_token} from a DPoP-bound one.
   */
  public boolean staleToken() {
    return "ExpiredToken".equals(error)
        || "InvalidToken".equals(error)
        || "invalid_token".equals(error);
  }

  /** True for a 5xx, a 429 or no status at all: the failures a write may retry. */
  public boolean retryable() {
    return status == 0 || status == 429 || status >= 500;
  }

  /**
   * True when the server refused the body as too large (413, BlobTooLarge, PayloadTooLargeError).
   */
  public boolean tooLarge() {
    return status == 413
        || "BlobTooLarge".equals(error)
        || "PayloadTooLargeError".equals(error)
        || "PayloadTooLarge".equals(error);
  }
}
