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

  private SpaceErrors() {}

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
