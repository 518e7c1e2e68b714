package dev.knotless.runner.pass;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.Pruning;
import dev.knotless.runner.filing.CheckFiler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of a pass: at most once an hour per repository, deletes the runner's own checks of
 * it that runner-core's {@link Pruning} rules say go, in applyWrites of {@link Pruning#BATCH}.
 *
 * <p>This runner runs no pulls, so it cannot know a repository's open pulls. When none of its
 * checks of the repository is a pull's run, the open pulls decide nothing and pruning goes on; when
 * some are (left by a runner with pulls under the same account), nothing is pruned, as with no
 * appview. {@code --keep-checks 0} prunes nothing. Thread-safe.
 */
public final class CheckPruner {

  /** How often one repository's checks are pruned at most. */
  public static final Duration EVERY = Duration.ofHours(1);

  private static final Logger LOG = LoggerFactory.getLogger(CheckPruner.class);

  private final CheckFiler filer;
  private final int keepCheckDays;
  private final Map<String, Instant> lastPruned = new ConcurrentHashMap<>();

  /**
   * @param keepCheckDays {@code --keep-checks}: 0 prunes nothing
   */
  public CheckPruner(CheckFiler filer, int keepCheckDays) {
    this.filer = filer;
    this.keepCheckDays = keepCheckDays;
  }

  /**
   * Prunes the repository's checks if an hour has passed since the last time.
   *
   * @param defaultRef the default branch's full ref
   * @param liveRefs the full names of the refs the repository has now
   * @return how many checks were deleted
   */
  /**
   * Counts {@code stateKey}'s repository as pruned at {@code now}, unless a pass pruned it already:
   * for a repository a start found the runner holds no checks of, so its first pass does not list
   * them again. What its passes file from now on is less than a day old within the hour, so none of
   * it could have gone anyway.
   */
  public void nothingToPrune(String stateKey, Instant now) {
    lastPruned.putIfAbsent(stateKey, now);
  }

  public int maybePrune(Watched repo, String defaultRef, Set<String> liveRefs, Instant now)
      throws XrpcException {
    return maybePrune(repo, defaultRef, liveRefs, null, now);
  }

  /**
   * As above, knowing the repository's open pulls ({@code openPulls}, from the pass's pulls step;
   * null when the runner cannot know them): a closed pull's runs then go too.
   */
  public int maybePrune(
      Watched repo, String defaultRef, Set<String> liveRefs, Set<String> openPulls, Instant now)
      throws XrpcException {
    if (keepCheckDays <= 0) {
      return 0;
    }
    Instant last = lastPruned.get(repo.stateKey());
    if (last != null && now.isBefore(last.plus(EVERY))) {
      return 0;
    }
    lastPruned.put(repo.stateKey(), now);
    List<Pruning.Check> checks = new ArrayList<>();
    boolean pullRuns = false;
    for (Record r : filer.list(CheckKeys.repoPrefix(repo.id().ownerDid(), repo.id().repoKey()))) {
      try {
        CheckRecord c = CheckRecord.fromJson(r.value());
        pullRuns |= c.pull() != null;
        checks.add(new Pruning.Check(r.rkey(), c));
      } catch (IllegalArgumentException e) {
        LOG.warn("{}: check {} does not parse, kept: {}", repo.label(), r.rkey(), e.getMessage());
      }
    }
    Pruning.Decision d =
        Pruning.decide(
            checks,
            new Pruning.Context(
                repo.id().ownerDid(),
                repo.id().repoKey(),
                defaultRef,
                liveRefs,
                // Without the open pulls known, no pull's run can be judged: none goes.
                openPulls != null ? openPulls : pullRuns ? null : Set.of(),
                now,
                keepCheckDays));
    if (!d.deletes().isEmpty()) {
      filer.delete(d.deletes());
      LOG.info("{}: pruned {} of its {} checks", repo.label(), d.deletes().size(), checks.size());
    }
    return d.deletes().size();
  }

  /** Forgets when a repository was pruned, for one no longer watched. */
  public void forget(Watched repo) {
    lastPruned.remove(repo.stateKey());
  }
}
