package dev.knotless.atproto.space;

import dev.knotless.atproto.XrpcException;

/** The refusals a space answers with, by their XRPC error names. */
public final class SpaceErrors {
  /** The caller is not (or no longer) a member of the space. */
  public static final String NOT_MEMBER = "NotMember";

  /** No space of that name: never made, or deleted. */
  public static final String SPACE_NOT_FOUND = "SpaceNotFound";

  /** The space credential is past its time; a fresh one is asked for once. */
  public static final String EXPIRED_CREDENTIAL = "ExpiredCredential";

  /** The space credential is not one the host gave, or not for this space. */
  public static final String INVALID_CREDENTIAL = "InvalidCredential";

  /**
   * Ours, not a host's: the caller's own PDS gave this login no service token for a space method.
   * An app password is given none (private data is read with OAuth), nor is an OAuth session
   * granted before knotless asked for the space methods.
   */
  public static final String LOGIN_REFUSED = "SpaceLoginRefused";

  private SpaceErrors() {}

  /** The caller's login may not use spaces: see {@link #LOGIN_REFUSED}. */
  public static boolean loginRefused(XrpcException e) {
    return LOGIN_REFUSED.equals(e.error());
  }

  /**
   * {@code e}'s message, naming the command that logs in with OAuth ({@code login}, such as {@code
   * knotless login}) when a {@link #LOGIN_REFUSED} is among its causes and the message does not
   * name it already: a command that fails on an app password then says what to run.
   */
  public static String withLogin(Throwable e, String login) {
    String message = String.valueOf(e.getMessage());
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof XrpcException x && loginRefused(x) && !message.contains(login)) {
        return message + " (`" + login + "`)";
      }
    }
    return message;
  }

  /**
   * {@code e}, the PDS refusing {@code getServiceAuth} for the space method {@code method} to a
   * login of {@code kind} ({@link dev.knotless.atproto.XrpcClient#loginKind()}), as a {@link
   * #LOGIN_REFUSED} that says what to do; empty when it is not a refusal of the login (a 401, a
   * 5xx, no answer, a rate limit), which may pass.
   */
  static java.util.Optional<XrpcException> loginRefused(
      XrpcException e, String method, String kind) {
    // 403 (a scope the session lacks, or a login the PDS keeps out of spaces) or 400 (as a PDS
    // refuses a privileged method to an app password); a 401 is a token gone bad, not the login's
    // kind, and is left as it is.
    boolean refused = e.status() == 403 || e.status() == 400;
    if (!refused || !"com.atproto.server.getServiceAuth".equals(e.method())) {
      return java.util.Optional.empty();
    }
    String why =
        "OAuth session".equals(kind)
            ? "this OAuth session was granted before knotless asked for it"
            : "an " + kind + " reads no private repository";
    return java.util.Optional.of(
        new XrpcException(
            method,
            e.status(),
            LOGIN_REFUSED,
            "the PDS gave this login no service token for it ("
                + dev.knotless.atproto.Printable.escape(
                    e.serverMessage() == null ? e.error() : e.serverMessage())
                + "): "
                + why
                + "; log in with OAuth",
            null,
            e));
  }

  public static boolean notMember(XrpcException e) {
    return NOT_MEMBER.equals(e.error());
  }

  public static boolean spaceNotFound(XrpcException e) {
    return SPACE_NOT_FOUND.equals(e.error());
  }

  /** Whether a fresh credential may cure the failure. */
  static boolean staleCredential(XrpcException e) {
    return EXPIRED_CREDENTIAL.equals(e.error()) || INVALID_CREDENTIAL.equals(e.error());
  }
}
