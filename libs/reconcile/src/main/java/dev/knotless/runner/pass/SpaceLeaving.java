package dev.knotless.runner.pass;

import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.space.SpaceErrors;
import dev.knotless.atproto.space.SpaceRecords;

/**
 * Whether a failed pass of a private repository means the runner has to leave it: the space's host
 * says the runner is no longer a member, or that the space is gone. Either way nothing more of the
 * repository can be read, and nothing may be filed anywhere else instead.
 */
public final class SpaceLeaving {
  private SpaceLeaving() {}

  /**
   * Why the runner leaves the repository read through {@code store}, or null when {@code failure}
   * is no such refusal (or the repository is public).
   */
  public static String why(RecordStore store, Throwable failure) {
    if (!(store instanceof SpaceRecords space)) {
      return null;
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof XrpcException x) {
        if (SpaceErrors.notMember(x)) {
          return "the runner is no longer a member of the private repository's space "
              + space.space();
        }
        if (SpaceErrors.spaceNotFound(x)) {
          return "the private repository's space " + space.space() + " is gone";
        }
      }
    }
    return null;
  }
}
