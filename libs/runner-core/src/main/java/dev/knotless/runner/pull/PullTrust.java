package dev.knotless.runner.pull;

import java.util.Collection;

/**
 * Whose code a pull brings, and so when it runs. Stateless.
 *
 * <ul>
 *   <li>{@link #TRUSTED}: its author and its head repository's owner each write to the repository
 *       (the owner, or named in the repository record's {@code collaborators}); it runs as it
 *       moves.
 *   <li>{@link #AGENT}: each is an agent named in the record's {@code agents} or writes to it, and
 *       one at least is an agent; it runs as it moves, but as code no one vouches for.
 *   <li>{@link #UNTRUSTED}: anyone else's; it runs only when the owner asks ({@code knotless rerun
 *       --pull}), once, where it is then.
 * </ul>
 *
 * An account named as an agent counts as one even if it is a collaborator too.
 */
public enum PullTrust {
  TRUSTED,
  AGENT,
  UNTRUSTED;

  /** Whether a pull of this trust runs as it moves, without the owner asking. */
  public boolean runsAsItMoves() {
    return this != UNTRUSTED;
  }

  /** The trust of a pull written by {@code author} from a repository {@code headOwner} owns. */
  public static PullTrust of(
      String author,
      String headOwner,
      String ownerDid,
      Collection<String> collaborators,
      Collection<String> agents) {
    PullTrust a = one(author, ownerDid, collaborators, agents);
    PullTrust h = one(headOwner, ownerDid, collaborators, agents);
    if (a == UNTRUSTED || h == UNTRUSTED) {
      return UNTRUSTED;
    }
    return a == AGENT || h == AGENT ? AGENT : TRUSTED;
  }

  private static PullTrust one(
      String did, String ownerDid, Collection<String> collaborators, Collection<String> agents) {
    if (agents.contains(did)) {
      return AGENT;
    }
    return did.equals(ownerDid) || collaborators.contains(did) ? TRUSTED : UNTRUSTED;
  }
}
