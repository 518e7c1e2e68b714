package dev.knotless.runner.check;

import dev.knotless.atproto.Hashes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which of a repository's own checks the runner deletes, as a pure function of the checks and what
 * the pass read. Stateless and thread-safe.
 *
 * <p>Nothing still queued or running, or ended less than a day ago, is deleted. Of the rest:
 *
 * <ul>
 *   <li>a merge-queue batch's run;
 *   <li>a pull's run, once the pull is no longer open, or a newer run of the same pull and workflow
 *       was filed;
 *   <li>a push's run on a ref other than the default branch, once the ref is gone, or a newer run
 *       of the same ref and workflow was filed;
 *   <li>a push's run on the default branch that ended more than {@code keepCheckDays} days ago,
 *       unless it is the newest of its workflow there.
 * </ul>
 *
 * "Newer" is by createdAt. {@code keepCheckDays} 0 prunes nothing, and so do open pulls that are
 * not known (no appview for a public repository).
 */
public final class Pruning {

  /** Deletes go to the PDS in applyWrites calls of at most this many. */
  public static final int BATCH = 200;

  /** What was checked, as the record key and the record. */
  public record Check(String rkey, CheckRecord record) {}

  /**
   * What the pass knows.
   *
   * @param ownerDid the repository owner's DID
   * @param repoKey the repository's record key
   * @param defaultBranch the default branch's full ref ({@code refs/heads/main})
   * @param liveRefs the full names of the refs the repository has now
   * @param openPulls the AT-URIs of its open pulls, or null if they cannot be known
   * @param now the time of the pass
   * @param keepCheckDays {@code --keep-checks}: days a default-branch run is kept; 0 prunes nothing
   */
  public record Context(
      String ownerDid,
      String repoKey,
      String defaultBranch,
      Set<String> liveRefs,
      Set<String> openPulls,
      Instant now,
      int keepCheckDays) {}

  /** The keys to delete, in key order. */
  public record Decision(List<String> deletes) {
    /** Copies the list. */
    public Decision {
      deletes = List.copyOf(deletes);
    }

    /** The deletes cut into applyWrites calls of at most {@link #BATCH}. */
    public List<List<String>> batches() {
      List<List<String>> out = new ArrayList<>();
      for (int i = 0; i < deletes.size(); i += BATCH) {
        out.add(deletes.subList(i, Math.min(deletes.size(), i + BATCH)));
      }
      return out;
    }
  }

  private enum Kind {
    PUSH,
    PULL,
    QUEUE
  }

  private Pruning() {}

  /** Decides which of {@code checks} go. Checks whose key is not of the repository are kept. */
  public static Decision decide(List<Check> checks, Context ctx) {
    if (ctx.keepCheckDays() <= 0 || ctx.openPulls() == null) {
      return new Decision(List.of());
    }
    String prefix = CheckKeys.repoPrefix(ctx.ownerDid(), ctx.repoKey());
    Map<String, Check> newest = new HashMap<>();
    List<Check> mine = new ArrayList<>();
    for (Check c : checks) {
      if (!c.rkey().startsWith(prefix)) {
        continue;
      }
      mine.add(c);
      newest.merge(group(c, prefix), c, (a, b) -> NEWER.compare(a, b) >= 0 ? a : b);
    }
    Instant settled = ctx.now().minus(Duration.ofDays(1));
    Instant old = ctx.now().minus(Duration.ofDays(ctx.keepCheckDays()));
    List<String> deletes = new ArrayList<>();
    for (Check c : mine) {
      CheckRecord r = c.record();
      if (!r.status().ended() || r.endedAt() == null || r.endedAt().isAfter(settled)) {
        continue;
      }
      boolean isNewest = newest.get(group(c, prefix)) == c;
      boolean delete =
          switch (kind(c, prefix)) {
            case QUEUE -> true;
            case PULL -> !ctx.openPulls().contains(r.pull()) || !isNewest;
            case PUSH -> {
              if (!r.ref().equals(ctx.defaultBranch())) {
                yield !ctx.liveRefs().contains(r.ref()) || !isNewest;
              }
              yield r.endedAt().isBefore(old) && !isNewest;
            }
          };
      if (delete) {
        deletes.add(c.rkey());
      }
    }
    deletes.sort(Comparator.naturalOrder());
    return new Decision(deletes);
  }

  private static final Comparator<Check> NEWER =
      Comparator.comparing((Check c) -> c.record().createdAt()).thenComparing(Check::rkey);

  private static Kind kind(Check c, String prefix) {
    if (c.record().pull() != null) {
      return Kind.PULL;
    }
    String rest = c.rkey().substring(prefix.length());
    String third = rest.substring(0, Math.max(0, rest.indexOf('.')));
    String ref = c.record().ref();
    // A batch's run names its base branch as its ref and has a base commit, as no push's has.
    if (c.record().baseCommit() != null
        || (ref.startsWith("refs/heads/") && third.equals(Hashes.h("queue " + ref)))) {
      return Kind.QUEUE;
    }
    return Kind.PUSH;
  }

  /** Checks of the same subject and workflow: the newest of a group is kept. */
  private static String group(Check c, String prefix) {
    CheckRecord r = c.record();
    Kind k = kind(c, prefix);
    String subject = k == Kind.PULL ? r.pull() : r.ref();
    return k + " " + subject + " " + r.workflow();
  }
}
