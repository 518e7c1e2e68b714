package dev.knotless.runner.pass;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.filing.CheckFiler;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spares the first passes of many repositories their pruning where there is nothing to prune: the
 * runner's checks are listed once, and a repository holding none of them counts as pruned now
 * ({@link CheckPruner#nothingToPrune}), so its first pass reads only the repository. For a few
 * repositories a listing per pass is cheaper, and nothing is done. Stateless.
 */
public final class PruneAhead {
  /** From how many repositories the runner's checks are listed once rather than per pass. */
  public static final int ONE_LISTING_FROM = 100;

  private static final Logger LOG = LoggerFactory.getLogger(PruneAhead.class);

  private PruneAhead() {}

  /**
   * Lists the runner's checks once, if {@code repos} are many and {@code pruner} is on, and marks
   * those of {@code repos} holding none as pruned. A listing that fails is logged and leaves every
   * repository to be pruned by its first pass, as without this.
   *
   * @return the checks listed, by repository prefix; empty when none were listed
   */
  public static Map<String, List<Record>> skipEmpty(
      Collection<Watched> repos, CheckFiler filer, CheckPruner pruner, Clock clock) {
    if (pruner == null || repos.size() < ONE_LISTING_FROM) {
      return Map.of();
    }
    Map<String, List<Record>> byPrefix;
    try {
      byPrefix = filer.listByRepo();
    } catch (XrpcException e) {
      LOG.warn("the runner's checks could not be listed; each first pass lists its own: {}", e);
      return Map.of();
    }
    for (Watched w : repos) {
      // A private repository's checks are in its space, which the public listing does not see.
      if (!w.privateRepo()
          && !byPrefix.containsKey(CheckKeys.repoPrefix(w.id().ownerDid(), w.id().repoKey()))) {
        pruner.nothingToPrune(w.stateKey(), clock.instant());
      }
    }
    return byPrefix;
  }
}
