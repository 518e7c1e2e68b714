package dev.knotless.storage.push;

import dev.knotless.storage.records.RefRecord;
import java.io.IOException;

/**
 * Decides what a push does with one ref, from what the remote holds and what the local repository
 * knows. Pure apart from the questions it asks {@link Local}; thread-safe.
 */
public final class RefspecCheck {
  /** The refusal for an old remote target the pusher has never seen. */
  public static final String FETCH_FIRST = "fetch first";

  /** The refusal for an update that is not a descendant of the remote target. */
  public static final String NON_FAST_FORWARD = "non-fast-forward";

  /** What the check asks of the local repository. */
  public interface Local {
    boolean has(String sha) throws IOException;

    boolean isAncestor(String ancestor, String descendant) throws IOException;
  }

  private RefspecCheck() {}

  /**
   * Decides for {@code update} against {@code current}, the ref's record as read (null when the
   * repository has none; an empty pre-0.6 record counts as absent).
   */
  public static RefDecision decide(RefUpdate update, RefRecord current, Local local)
      throws IOException {
    boolean live = current != null && current.live();
    if (update.delete()) {
      if (!live) {
        return new RefDecision.Refused(update, "remote ref does not exist");
      }
      return new RefDecision.Delete(update, current);
    }
    if (!live) {
      return new RefDecision.Create(update, current);
    }
    if (current.target().equals(update.target())) {
      return new RefDecision.UpToDate(update);
    }
    if (!update.force()) {
      if (!local.has(current.target())) {
        return new RefDecision.Refused(update, FETCH_FIRST);
      }
      if (!local.isAncestor(current.target(), update.target())) {
        return new RefDecision.Refused(update, NON_FAST_FORWARD);
      }
    }
    return new RefDecision.Move(update, current);
  }
}
