package dev.knotless.runner.e2e;

import static dev.knotless.testing.infra.ToolRun.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.cli.KnotlessCli;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.merge.MergeCommits;
import dev.knotless.storage.merge.PullReader;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import dev.knotless.testing.infra.ToolRun;
import dev.knotless.testing.infra.ToolRun.Ran;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code knotless merge} against the real reference PDS, with checks filed by an account standing
 * in for a runner, so each of the gate's cases is exactly the one meant: the spec's ordering of
 * statuses, checks of an account the repository does not name, {@code --force}, and a repository
 * naming no runners. {@link MergeGateRunnerIT} has a real runner make the checks.
 */
@WithPds
class MergeGateIT {

  static final String STEP = "image: knotless-test/busybox:1\nsteps: [{name: s, run: 'true'}]\n";

  static Ran knotless(Map<String, String> env, String... argv) {
    return ToolRun.run(env, ctx -> KnotlessCli.run(List.of(argv), ctx));
  }

  /** An account filing check records as a runner would, under the runner's record keys. */
  static final class FakeRunner {
    final Account account;
    final XrpcClient client;
    private int tick;

    FakeRunner(PdsInstance pds, String name) throws Exception {
      account = pds.createAccount(name);
      client = XrpcClient.create(pds.pdsUrl());
      client.login(account.handle(), account.password());
    }

    void file(OwnerRepo repo, String pull, String head, String base, String workflow, String status)
        throws Exception {
      ObjectNode v = JsonNodeFactory.instance.objectNode();
      v.put("$type", "dev.knotless.check");
      v.put("repo", "at://" + repo.account.did() + "/dev.knotless.repo/" + repo.address.name());
      v.put("ref", "refs/heads/feature");
      v.put("commit", head);
      v.put("baseCommit", base);
      v.put("pull", pull);
      v.put("workflow", workflow);
      v.put("status", status);
      // Each filing is newer than the last, so the newest decides as the spec says.
      v.put("createdAt", Instant.parse("2026-12-01T10:00:00Z").plusSeconds(tick++).toString());
      v.put("note", status.equals("failure") ? "step s failed" : "");
      String rkey = CheckKeys.pull(repo.account.did(), repo.key(), pull, head, base, workflow);
      client.putRecord(account.did(), "dev.knotless.check", rkey, v, Swap.none());
    }
  }

  static OwnerRepo repo(PdsInstance pds, Path tmp) throws Exception {
    OwnerRepo repo =
        new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
    repo.commit(
        Map.of(
            "README.md", "hello\n",
            ".knotless/workflows/test.yml", "on: {pull: {}}\n" + STEP,
            ".knotless/workflows/lint.yml", "on: {pull: {}}\n" + STEP,
            ".knotless/workflows/deploy.yml", "on: {push: {}}\n" + STEP));
    repo.push("main");
    return repo;
  }

  static String branch(OwnerRepo repo, String name, Map<String, String> files) throws Exception {
    repo.git("checkout", "-q", "-b", name, "main");
    String sha = repo.commit(files);
    repo.push(name);
    repo.git("checkout", "-q", "main");
    return sha;
  }

  /** Where the branch is on the owner's PDS, as any reader sees it. */
  static String tip(PdsInstance pds, OwnerRepo repo, String branch) throws Exception {
    Path cache = java.nio.file.Files.createTempDirectory("tip-cache");
    return new SnapshotReader(
            XrpcClient.create(pds.pdsUrl()),
            StorageCache.at(cache, Clock.systemUTC()),
            Clock.systemUTC())
        .read(repo.address, SnapshotReader.Packs.NONE)
        .liveRefs()
        .get("refs/heads/" + branch)
        .target();
  }

  /** The merge commit every runner makes of the head into the base: made here, independently. */
  static String expectedMerge(OwnerRepo repo, String head, String base, String pull)
      throws Exception {
    MergeCommits.Merged m =
        MergeCommits.merge(
            Git.at(repo.workTree().resolve(".git")),
            head,
            base,
            "refs/heads/feature",
            "refs/heads/main",
            pull);
    return ((MergeCommits.Checked) m).commit();
  }

  @Test
  void theGateFollowsTheOrderOfStatusesIgnoresUnnamedAccountsAndMergesTheCheckedCommit(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    OwnerRepo repo = repo(pds, tmp);
    FakeRunner runner = new FakeRunner(pds, "runner");
    FakeRunner stranger = new FakeRunner(pds, "stranger");
    Map<String, String> owner = env(pds, repo.account, tmp.resolve("cli"));
    assertEquals(0, knotless(owner, "runners", repo.label(), "add", runner.account.did()).exit());
    String head = branch(repo, "feature", Map.of("a.txt", "a\n"));
    String base = repo.commit(Map.of("docs.md", "docs\n"));
    repo.push("main");
    String pull = new PullAuthor(repo).open(repo, "main", repo, "feature");

    // A stranger's successes are never read: the pull is not checked yet.
    stranger.file(repo, pull, head, base, "test", "success");
    stranger.file(repo, pull, head, base, "lint", "success");
    Ran pending = knotless(owner, "merge", pull, "--check");
    assertEquals(3, pending.exit(), pending.all());
    assertTrue(pending.out().startsWith("pending: " + pull), pending.out());
    assertTrue(pending.out().matches("(?s).*\nlint +pending +missing\n.*"), pending.out());
    assertTrue(pending.out().matches("(?s).*\ntest +pending +missing\n.*"), pending.out());
    assertFalse(pending.out().contains("deploy"), "a push workflow does not gate a pull");

    runner.file(repo, pull, head, base, "test", "success");
    runner.file(repo, pull, head, base, "lint", "running");
    Ran running = knotless(owner, "merge", pull, "--check");
    assertEquals(3, running.exit(), running.all());
    assertTrue(running.out().startsWith("running: "), running.out());
    assertTrue(running.out().matches("(?s).*\ntest +passed +success +did:.*"), running.out());
    Ran notYet = knotless(owner, "merge", pull);
    assertEquals(3, notYet.exit(), notYet.all());
    assertTrue(notYet.err().contains("not merged: the gate is running"), notYet.err());
    assertEquals(base, tip(pds, repo, "main"), "nothing merged");

    // A failure wins over a check still running.
    runner.file(repo, pull, head, base, "test", "running");
    runner.file(repo, pull, head, base, "lint", "failure");
    Ran failed = knotless(owner, "merge", pull, "--check");
    assertEquals(1, failed.exit(), failed.all());
    assertTrue(failed.out().startsWith("failed: "), failed.out());
    assertTrue(
        failed.out().matches("(?s).*\nlint +failed +failure .*step s failed.*"), failed.out());
    Ran refused = knotless(owner, "merge", pull, "--wait", "--every", "0");
    assertEquals(1, refused.exit(), refused.all());
    assertTrue(refused.err().contains("not merged: the gate failed"), refused.err());

    // Cancelled is not checked: pending, as missing is.
    runner.file(repo, pull, head, base, "test", "success");
    runner.file(repo, pull, head, base, "lint", "cancelled");
    Ran cancelled = knotless(owner, "merge", pull, "--check");
    assertEquals(3, cancelled.exit(), cancelled.all());
    assertTrue(cancelled.out().startsWith("pending: "), cancelled.out());
    assertTrue(cancelled.out().matches("(?s).*\nlint +pending +cancelled.*"), cancelled.out());

    runner.file(repo, pull, head, base, "lint", "success");
    Ran passed = knotless(owner, "merge", pull, "--check");
    assertEquals(0, passed.exit(), passed.all());
    assertTrue(passed.out().startsWith("passed: "), passed.out());

    String merge = expectedMerge(repo, head, base, pull);
    assertTrue(passed.out().contains("checked at merge commit " + merge.substring(0, 12)));
    Ran merged = knotless(owner, "merge", pull);
    assertEquals(0, merged.exit(), merged.all());
    assertTrue(
        merged.out().contains("at " + merge + " (a merge commit, the one the runners checked)"),
        merged.out());
    assertEquals(merge, tip(pds, repo, "main"), "main is at the merge commit the runners checked");

    Ran again = knotless(owner, "merge", pull);
    assertEquals(1, again.exit(), again.all());
    assertTrue(again.err().contains(pull + " is merged"), again.err());
  }

  @Test
  void aRepositoryNamingNoRunnersMergesWithoutAGateAndAHeadContainingTheBaseFastForwards(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    OwnerRepo repo = repo(pds, tmp);
    Map<String, String> owner = env(pds, repo.account, tmp.resolve("cli"));
    String head = branch(repo, "feature", Map.of("a.txt", "a\n"));
    String pull = new PullAuthor(repo).open(repo, "main", repo, "feature");

    Ran check = knotless(owner, "merge", pull, "--check");
    assertEquals(0, check.exit(), check.all());
    assertTrue(check.out().contains("names no runners: nothing gates a merge"), check.out());
    Ran merged = knotless(owner, "merge", pull);
    assertEquals(0, merged.exit(), merged.all());
    assertTrue(merged.out().contains("at " + head + " (a fast-forward"), merged.out());
    assertTrue(merged.out().contains("names no runners, so no gate"), merged.out());
    assertEquals(head, tip(pds, repo, "main"));
  }

  @Test
  void forceIsTheOwnersAloneAndMergesWhateverTheChecksSay(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    OwnerRepo repo = repo(pds, tmp);
    FakeRunner runner = new FakeRunner(pds, "runner");
    Map<String, String> owner = env(pds, repo.account, tmp.resolve("cli"));
    assertEquals(0, knotless(owner, "runners", repo.label(), "add", runner.account.did()).exit());
    String head = branch(repo, "feature", Map.of("a.txt", "a\n"));
    String base = repo.commit(Map.of("docs.md", "docs\n"));
    repo.push("main");
    String pull = new PullAuthor(repo).open(repo, "main", repo, "feature");
    runner.file(repo, pull, head, base, "test", "failure");

    Account other = pds.createAccount("other");
    Ran notOwner = knotless(env(pds, other, tmp.resolve("other")), "merge", pull, "--force");
    assertEquals(1, notOwner.exit(), notOwner.all());
    assertTrue(notOwner.err().contains("--force is the owner's alone"), notOwner.err());
    assertEquals(base, tip(pds, repo, "main"));

    Ran forced = knotless(owner, "merge", pull, "--force");
    assertEquals(0, forced.exit(), forced.all());
    assertTrue(forced.out().contains("--force: the gate was not read"), forced.out());
    assertEquals(expectedMerge(repo, head, base, pull), tip(pds, repo, "main"));
  }

  @Test
  void waitingFollowsTheBaseAsItMovesAsksForOneRunAndMergesIntoTheNewBase(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    OwnerRepo repo = repo(pds, tmp);
    FakeRunner runner = new FakeRunner(pds, "runner");
    Map<String, String> owner = env(pds, repo.account, tmp.resolve("cli"));
    assertEquals(0, knotless(owner, "runners", repo.label(), "add", runner.account.did()).exit());
    String head = branch(repo, "feature", Map.of("a.txt", "a\n"));
    String base1 = repo.commit(Map.of("docs.md", "docs\n"));
    repo.push("main");
    String pull = new PullAuthor(repo).open(repo, "main", repo, "feature");
    runner.file(repo, pull, head, base1, "test", "success");

    CompletableFuture<Ran> waiting =
        CompletableFuture.supplyAsync(
            () -> knotless(owner, "merge", pull, "--wait", "--every", "1", "--timeout", "90"));
    // lint has no check: merge asks the runners once, then keeps waiting.
    String prefix = repo.key() + ".";
    XrpcClient anyone = XrpcClient.create(pds.pdsUrl());
    RunnerHarness.await(
        "merge --wait to ask for a run",
        () -> {
          try {
            return !PullReader.scan(anyone, repo.account.did(), "dev.knotless.rerun", prefix)
                .isEmpty();
          } catch (Exception e) {
            return false;
          }
        });
    // Someone pushes to main meanwhile: the checks at the old base no longer speak for the pull.
    String base2 = repo.commit(Map.of("more.md", "more\n"));
    repo.push("main");
    runner.file(repo, pull, head, base1, "lint", "success");
    Thread.sleep(2500);
    assertFalse(waiting.isDone(), "passing checks at the old base do not merge it");
    runner.file(repo, pull, head, base2, "test", "success");
    runner.file(repo, pull, head, base2, "lint", "success");

    Ran ran = waiting.get(60, TimeUnit.SECONDS);
    assertEquals(0, ran.exit(), ran.all());
    assertTrue(ran.out().contains("not checked yet: asked the runners to run " + pull), ran.out());
    String merge = expectedMerge(repo, head, base2, pull);
    assertTrue(ran.out().contains("at " + merge + " (a merge commit"), ran.out());
    assertEquals(merge, tip(pds, repo, "main"), "merged into main as it is now");
    assertEquals(
        1,
        PullReader.scan(anyone, repo.account.did(), "dev.knotless.rerun", prefix).size(),
        "one rerun request, however long merge waited");
  }

  @Test
  void aConflictingPullIsRefusedEvenWithForceAndAClosedOneIsNotMerged(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    OwnerRepo repo = repo(pds, tmp);
    Map<String, String> owner = env(pds, repo.account, tmp.resolve("cli"));
    branch(repo, "feature", Map.of("README.md", "the pull's words\n"));
    String base = repo.commit(Map.of("README.md", "main's words\n"));
    repo.push("main");
    String pull = new PullAuthor(repo).open(repo, "main", repo, "feature");

    Ran check = knotless(owner, "merge", pull, "--check");
    assertEquals(1, check.exit(), "a pull that cannot merge fails the gate: " + check.all());
    assertTrue(check.out().startsWith("failed: "), check.out());
    assertTrue(
        check.out().contains("checked at no commit: the head conflicts with the base"),
        check.out());
    Ran forced = knotless(owner, "merge", pull, "--force");
    assertEquals(1, forced.exit(), forced.all());
    assertTrue(
        forced.err().contains("the head conflicts with refs/heads/main in README.md"),
        forced.err());
    assertEquals(base, tip(pds, repo, "main"));

    String other = new PullAuthor(repo).open(repo, "main", repo, "feature");
    new PullAuthor(repo).state(repo, other, "closed");
    Ran closed = knotless(owner, "merge", other, "--force");
    assertEquals(1, closed.exit(), closed.all());
    assertTrue(closed.err().contains(other + " is closed"), closed.err());

    // A draft does not merge, even with --force.
    String draft = new PullAuthor(repo).open(repo, "main", repo, "feature");
    ObjectNode v =
        (ObjectNode)
            repo.client
                .getRecord(
                    repo.account.did(),
                    "dev.knotless.pull",
                    draft.substring(draft.lastIndexOf('/') + 1))
                .value();
    v.put("draft", true);
    repo.client.putRecord(
        repo.account.did(),
        "dev.knotless.pull",
        draft.substring(draft.lastIndexOf('/') + 1),
        v,
        Swap.none());
    Ran drafted = knotless(owner, "merge", draft, "--force");
    assertEquals(1, drafted.exit(), drafted.all());
    assertTrue(drafted.err().contains(draft + " is a draft"), drafted.err());
  }
}
