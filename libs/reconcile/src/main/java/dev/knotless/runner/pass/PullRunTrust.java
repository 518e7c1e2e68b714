package dev.knotless.runner.pass;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.runner.pull.PullRecord;
import dev.knotless.runner.pull.PullTrust;
import dev.knotless.runner.workflow.SharedSteps;
import dev.knotless.runner.workflow.StepLock;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Whose code a pull's run runs, decided one way wherever the run is planned: by the pulls step as
 * it files the run, and by a scheduler planning it again from its order, each from the records it
 * read itself. A pull's run gets no secrets whatever its trust; the trust decides how it reads its
 * caches and whether its pass is kept. Stateless.
 */
public final class PullRunTrust {

  private PullRunTrust() {}

  /** The DIDs of a repository record's list ({@code collaborators}, {@code agents}). */
  public static List<String> dids(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  /**
   * The trust of pull {@code p} into a repository of {@code ownerDid} whose record is {@code repo}.
   */
  public static PullTrust of(PullRecord p, String ownerDid, JsonNode repo) {
    return PullTrust.of(
        p.author(),
        p.head().did(),
        ownerDid,
        dids(repo.path("collaborators")),
        dids(repo.path("agents")));
  }

  /**
   * A pull's trust at its merge commit: {@code trust}, or {@link PullTrust#UNTRUSTED} when the
   * merge brings shared steps from accounts the base's lock does not name and who do not write to
   * the repository ({@code strangers}, from {@link #lockStrangers}).
   */
  public static PullTrust atMerge(PullTrust trust, List<String> strangers) {
    return trust.runsAsItMoves() && !strangers.isEmpty() ? PullTrust.UNTRUSTED : trust;
  }

  /**
   * The accounts the lock at the merge commit names that the base's lock does not, and that do not
   * write to the repository; a lock that does not parse names a stranger of its own.
   */
  public static List<String> lockStrangers(
      Watched repo, Mirror mirror, String merged, String base, List<String> collaborators)
      throws IOException {
    StepLock pullLock;
    StepLock baseLock;
    try {
      pullLock = SharedStepFiles.lock(mirror.git(), merged);
    } catch (IllegalArgumentException e) {
      return List.of("an unreadable lock (" + e.getMessage() + ")");
    }
    try {
      baseLock = SharedStepFiles.lock(mirror.git(), base);
    } catch (IllegalArgumentException e) {
      baseLock = StepLock.NONE;
    }
    return SharedSteps.strangers(pullLock, baseLock, repo.id().ownerDid(), collaborators);
  }
}
