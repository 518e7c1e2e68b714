package dev.knotless.runner.queue;

import java.util.List;

/**
 * Which runner lands a repository's merge queue (docs/merge.md, "Who lands it"): a runner started
 * with {@code --queue} lands it when its own account writes to the repository (the owner's, or a
 * collaborator's), or when the repository names it among its runners and names no runner whose
 * account writes to it. Only the owner's account writes straight to the repository; any other lands
 * through the repository's gateway, which writes the push into the owner's account naming the
 * runner as its pusher. Pure; stateless and thread-safe.
 */
public final class QueueLander {

  private QueueLander() {}

  /** Whether and how this runner lands the queue. */
  public enum Role {
    /** It runs as the owner's account and pushes the landing itself. */
    OWNER,
    /** It lands, but only through the repository's gateway: its account is not the owner's. */
    THROUGH_GATEWAY,
    /** Another runner lands it, or none may. */
    NOT_HERE
  }

  /**
   * Decides this runner's role.
   *
   * @param runnerDid the account this runner logs in as
   * @param ownerDid the repository's owner
   * @param collaborators the repository record's collaborators
   * @param runners the repository record's runners
   */
  public static Role of(
      String runnerDid, String ownerDid, List<String> collaborators, List<String> runners) {
    if (runnerDid.equals(ownerDid)) {
      return Role.OWNER;
    }
    if (collaborators.contains(runnerDid)) {
      return Role.THROUGH_GATEWAY;
    }
    if (!runners.contains(runnerDid)) {
      return Role.NOT_HERE;
    }
    boolean writerNamed =
        runners.stream().anyMatch(r -> r.equals(ownerDid) || collaborators.contains(r));
    return writerNamed ? Role.NOT_HERE : Role.THROUGH_GATEWAY;
  }
}
