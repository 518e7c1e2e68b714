package dev.knotless.runner.check;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PruningTest {

  static final String OWNER = CheckKeysTest.OWNER;
  static final String REPO = CheckKeysTest.REPO;
  static final String MAIN = "refs/heads/main";
  static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  static final String PULL = CheckKeysTest.PULL;
  static final String REPO_URI = "at://" + OWNER + "/dev.knotless.repo/" + REPO;

  static int serial = 0;

  static String sha(int n) {
    return String.format("%040x", n);
  }

  /** A push check ended {@code ageDays} ago (created a minute before it ended). */
  static Pruning.Check push(String ref, String workflow, double ageDays, CheckStatus status) {
    int n = ++serial;
    Instant ended = NOW.minus(Duration.ofMinutes((long) (ageDays * 24 * 60)));
    CheckRecord r =
        new CheckRecord(
            REPO_URI,
            ref,
            sha(n),
            null,
            null,
            workflow,
            status,
            ended.minusSeconds(60),
            ended.minusSeconds(50),
            status.ended() ? ended : null,
            List.of(),
            null,
            List.of(),
            null);
    return new Pruning.Check(CheckKeys.push(OWNER, REPO, ref, sha(n), workflow), r);
  }

  static Pruning.Check pull(String pullUri, String workflow, double ageDays) {
    int n = ++serial;
    Instant ended = NOW.minus(Duration.ofMinutes((long) (ageDays * 24 * 60)));
    CheckRecord r =
        new CheckRecord(
            REPO_URI,
            "refs/heads/feature",
            sha(n),
            sha(0),
            pullUri,
            workflow,
            CheckStatus.SUCCESS,
            ended.minusSeconds(60),
            null,
            ended,
            List.of(),
            null,
            List.of(),
            null);
    return new Pruning.Check(CheckKeys.pull(OWNER, REPO, pullUri, sha(n), sha(0), workflow), r);
  }

  static Pruning.Check batch(double ageDays) {
    int n = ++serial;
    Instant ended = NOW.minus(Duration.ofMinutes((long) (ageDays * 24 * 60)));
    CheckRecord r =
        new CheckRecord(
            REPO_URI,
            MAIN,
            sha(n),
            sha(0),
            null,
            "ci",
            CheckStatus.SUCCESS,
            ended.minusSeconds(60),
            null,
            ended,
            List.of(),
            null,
            List.of(),
            null);
    return new Pruning.Check(CheckKeys.queue(OWNER, REPO, MAIN, sha(n), sha(0), "ci"), r);
  }

  static Pruning.Context ctx(Set<String> refs, Set<String> openPulls, int keepDays) {
    return new Pruning.Context(OWNER, REPO, MAIN, refs, openPulls, NOW, keepDays);
  }

  static List<String> deleted(List<Pruning.Check> checks, Pruning.Context ctx) {
    return Pruning.decide(checks, ctx).deletes();
  }

  static List<String> keys(Pruning.Check... checks) {
    return java.util.Arrays.stream(checks).map(Pruning.Check::rkey).sorted().toList();
  }

  @Test
  void aBranchRunGoesOnceANewerRunOfTheSameRefAndWorkflowExists() {
    var older = push("refs/heads/dev", "ci", 3, CheckStatus.FAILURE);
    var newer = push("refs/heads/dev", "ci", 2, CheckStatus.SUCCESS);
    var otherWorkflow = push("refs/heads/dev", "lint", 3, CheckStatus.SUCCESS);
    assertEquals(
        keys(older),
        deleted(
            List.of(older, newer, otherWorkflow),
            ctx(Set.of(MAIN, "refs/heads/dev"), Set.of(), 30)));
  }

  @Test
  void everyRunOfARefThatIsGoneGoes() {
    var a = push("refs/heads/gone", "ci", 2, CheckStatus.SUCCESS);
    var b = push("refs/heads/gone", "lint", 2, CheckStatus.SUCCESS);
    assertEquals(keys(a, b), deleted(List.of(a, b), ctx(Set.of(MAIN), Set.of(), 30)));
  }

  @Test
  void nothingRunningOrEndedLessThanADayAgoIsDeleted() {
    var running = push("refs/heads/gone", "ci", 5, CheckStatus.RUNNING);
    var queued = push("refs/heads/gone", "lint", 5, CheckStatus.QUEUED);
    var fresh = push("refs/heads/gone", "docs", 0.5, CheckStatus.SUCCESS);
    var freshBatch = batch(0.9);
    assertEquals(
        List.of(),
        deleted(List.of(running, queued, fresh, freshBatch), ctx(Set.of(MAIN), Set.of(), 30)));
  }

  @Test
  void defaultBranchRunsGoAfterKeepChecksDaysUnlessNewestOfTheirWorkflow() {
    var old = push(MAIN, "ci", 40, CheckStatus.SUCCESS);
    var recentish = push(MAIN, "ci", 20, CheckStatus.SUCCESS);
    var oldButNewest = push(MAIN, "deploy", 60, CheckStatus.SUCCESS);
    assertEquals(
        keys(old), deleted(List.of(old, recentish, oldButNewest), ctx(Set.of(MAIN), Set.of(), 30)));
    assertEquals(
        keys(old, recentish),
        deleted(
            List.of(old, recentish, push(MAIN, "ci", 2, CheckStatus.SUCCESS)),
            ctx(Set.of(MAIN), Set.of(), 10)));
  }

  @Test
  void keepChecksZeroOrUnknownPullsPruneNothing() {
    var gone = push("refs/heads/gone", "ci", 40, CheckStatus.SUCCESS);
    var b = batch(3);
    assertEquals(List.of(), deleted(List.of(gone, b), ctx(Set.of(MAIN), Set.of(), 0)));
    assertEquals(List.of(), deleted(List.of(gone, b), ctx(Set.of(MAIN), null, 30)));
  }

  @Test
  void batchesGoAndPullRunsGoOnceClosedOrSuperseded() {
    var b = batch(2);
    var closed = pull("at://did:plc:bob/dev.knotless.pull/closed", "ci", 2);
    var olderOpen = pull(PULL, "ci", 3);
    var newerOpen = pull(PULL, "ci", 2);
    assertEquals(
        keys(b, closed, olderOpen),
        deleted(List.of(b, closed, olderOpen, newerOpen), ctx(Set.of(MAIN), Set.of(PULL), 30)));
  }

  @Test
  void checksOfAnotherRepositoryAreLeftAlone() {
    var mine = push("refs/heads/gone", "ci", 2, CheckStatus.SUCCESS);
    CheckRecord r = mine.record();
    var other =
        new Pruning.Check(
            CheckKeys.push(OWNER, "3lbqmxnq7cs2z", "refs/heads/gone", r.commit(), "ci"), r);
    assertEquals(keys(mine), deleted(List.of(mine, other), ctx(Set.of(MAIN), Set.of(), 30)));
  }

  @Test
  void deletesGoInBatchesOf200() {
    List<Pruning.Check> many = new ArrayList<>();
    for (int i = 0; i < 450; i++) {
      many.add(push("refs/heads/gone", "ci", 2, CheckStatus.SUCCESS));
    }
    Pruning.Decision d = Pruning.decide(many, ctx(Set.of(MAIN), Set.of(), 30));
    assertEquals(450, d.deletes().size());
    assertEquals(List.of(200, 200, 50), d.batches().stream().map(List::size).toList());
  }
}
