package dev.knotless.runner.mergequeue;

import dev.knotless.runner.check.CheckKeys;

/**
 * Which checks, once filed as ended, ring their repository's door so that the next pass comes at
 * once rather than at the next sweep: a merge-queue batch's, whose ending the queue step reads to
 * land, halve or eject; and a pull's, since a queued pull's pre-flight ending may let it into a
 * batch. Where the run and the filing are in different processes (the distributed shape), the
 * process that files the check asks this. Stateless.
 */
public final class EndedRings {

  private EndedRings() {}

  /**
   * Whether the ended check {@code checkKey}, of {@code ownerDid}'s repository {@code repoKey} on
   * {@code ref}, for {@code pull} (null for a push or a batch), rings its repository's door.
   */
  public static boolean rings(
      String ownerDid, String repoKey, String ref, String pull, String checkKey) {
    return pull != null || CheckKeys.isBatch(ownerDid, repoKey, ref, checkKey);
  }
}
