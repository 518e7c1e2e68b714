package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.AllInOneIT.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.engine.Runner;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --pulls} end to end: pulls and states written to the reference PDS, listed by the harness
 * appview that indexes them from it, heads fetched from their owners' PDSes, merged with the base
 * tip and run in containers of the real docker daemon.
 */
@WithPds
class PullsIT {

  /** Fails when both halves of a change are there: each pull alone passes, together they fail. */
  static final String CI =
      """
      on: {pull: {base: [refs/heads/main]}}
      image: knotless-test/git:1
      secrets: [TOKEN]
      steps:
        - name: check
          run: |
            echo "sha=$KNOTLESS_RUN_SHA base=$KNOTLESS_RUN_BASE ref=$KNOTLESS_RUN_REF"
            echo "token=${TOKEN:-none}"
            git -c safe.directory='*' log -1 --format='merge=%H parents=%P by=%an <%ae> at %at'
            test ! -e a.flag || test ! -e b.flag
      """;

  static final String TOKEN = "pull-secret-value-4711";

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  /**
   * A runner with --pulls on the docker executor, the appview and a secrets file granting TOKEN.
   */
  private static List<String> flags(RunnerHarness runner, HarnessAppview appview, OwnerRepo repo)
      throws Exception {
    runner.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
    Path secrets = runner.dir.resolve("secrets.json");
    Files.createDirectories(runner.dir);
    Files.writeString(secrets, "{\"" + repo.label() + "\": {\"TOKEN\": \"" + TOKEN + "\"}}");
    return List.of("--executor", "docker", "--pulls", "--secrets", secrets.toString());
  }

  private static OwnerRepo ownerRepo(PdsInstance pds, Path tmp) throws Exception {
    OwnerRepo repo =
        new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
    repo.commit(Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
    repo.push("main");
    return repo;
  }

  /** Commits {@code files} on a new branch off main, pushes it, and goes back to main. */
  private static String branch(OwnerRepo repo, String name, Map<String, String> files)
      throws Exception {
    repo.git("checkout", "-q", "-b", name, "main");
    String sha = repo.commit(files);
    repo.push(name);
    repo.git("checkout", "-q", "main");
    return sha;
  }

  private static String log(RunnerHarness runner, CheckRecord c) throws Exception {
    return new String(runner.log(c), StandardCharsets.UTF_8);
  }

  private static String merge(String log) {
    Matcher m = Pattern.compile("merge=([0-9a-f]{40})").matcher(log);
    assertTrue(m.find(), log);
    return m.group(1);
  }

  @Test
  void aTrustedPullIsCheckedAsMergingWouldLeaveItAndAgainWhenItsBaseMovesButNotAfterARestart(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness one = new RunnerHarness(pds, tmp.resolve("one"), "one");
        RunnerHarness two = new RunnerHarness(pds, tmp.resolve("two"), "two")) {
      OwnerRepo repo = ownerRepo(pds, tmp);
      List<String> flagsOne = flags(one, appview, repo);
      one.start(flagsOne, repo.label());
      two.start(flags(two, appview, repo), repo.label());
      one.awaitWatched(repo);
      two.awaitWatched(repo);
      // main moves past where the pull's branch starts, so the pull is checked at a merge commit.
      String head = branch(repo, "feature", Map.of("a.flag", "a\n"));
      String base1 = repo.commit(Map.of("docs.md", "docs\n"));
      repo.push("main");
      String pull = new PullAuthor(repo).open(repo, "main", repo, "feature");

      CheckRecord passed = one.awaitPullEnded(repo, pull, head, base1, "ci");
      String log = log(one, passed);
      assertEquals(CheckStatus.SUCCESS, passed.status(), log);
      assertEquals("refs/heads/feature", passed.ref());
      assertEquals(head, passed.commit());
      assertEquals(base1, passed.baseCommit());
      assertEquals(pull, passed.pull());
      assertTrue(log.contains("sha=" + head + " base=" + base1 + " ref=refs/heads/feature"), log);
      assertTrue(log.contains("token=none"), "a pull's run gets no secret: " + log);
      assertTrue(log.contains("TOKEN is not given to a pull's run"), log);
      assertTrue(!log.contains(TOKEN), log);
      String merged = merge(log);
      assertTrue(log.contains("parents=" + base1 + " " + head), log);
      assertTrue(log.contains("by=knotless <merge@knotless.dev> at 0"), log);
      assertTrue(log.contains("==> checked at " + merged), log);

      // Another runner, its own mirror, makes the same merge commit of the same head and base.
      CheckRecord other = two.awaitPullEnded(repo, pull, head, base1, "ci");
      assertEquals(merged, merge(log(two, other)), "two runners, one merge commit");

      // A change merged into main since breaks the pull only together with it.
      String base2 = repo.commit(Map.of("b.flag", "b\n"));
      repo.push("main");
      CheckRecord failed = one.awaitPullEnded(repo, pull, head, base2, "ci");
      assertEquals(CheckStatus.FAILURE, failed.status(), log(one, failed));
      assertEquals(base2, failed.baseCommit());

      // A restart does not run the pull again at the same head and base.
      Runner first = one.started().get(0);
      first.stop();
      one.start(flagsOne, repo.label());
      // A pull opened after the restart is listed after the first, so once its check is filed
      // the pass has been past the first pull.
      String head2 = branch(repo, "other", Map.of("c.txt", "c\n"));
      String pull2 = new PullAuthor(repo).open(repo, "main", repo, "other");
      one.awaitPullEnded(repo, pull2, head2, base2, "ci");
      CheckRecord still = one.pullCheck(repo, pull, head, base2, "ci");
      assertEquals(failed.createdAt(), still.createdAt(), "the check was not filed again");
      assertEquals(CheckStatus.FAILURE, still.status());
      assertEquals(
          2, one.pullChecks(repo, pull).size(), one.pullChecks(repo, pull).keySet().toString());
    }
  }

  @Test
  void aPullThatConflictsWithItsBaseFailsNamingTheFilesAndRunsNothing(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = ownerRepo(pds, tmp);
      runner.start(flags(runner, appview, repo), repo.label());
      runner.awaitWatched(repo);
      String head = branch(repo, "clash", Map.of("README.md", "the pull's words\n"));
      String base = repo.commit(Map.of("README.md", "main's words\n"));
      repo.push("main");
      String pull = new PullAuthor(repo).open(repo, "main", repo, "clash");

      CheckRecord c = runner.awaitPullEnded(repo, pull, head, base, "ci");
      assertEquals(CheckStatus.FAILURE, c.status(), c.toString());
      assertTrue(c.note().contains("README.md"), c.note());
      assertTrue(c.note().contains("merge main into the head, or rebase"), c.note());
      assertNull(c.startedAt(), "nothing started: " + c);
      assertNull(c.log(), "nothing ran, so no log: " + c);
      assertEquals(
          List.of(StepResult.Status.SKIPPED), c.steps().stream().map(StepResult::status).toList());
    }
  }

  @Test
  void aStrangersPullRunsOnlyWhenTheOwnerAsksAndThenOnceWithoutSecrets(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = ownerRepo(pds, tmp);
      runner.start(flags(runner, appview, repo), repo.label());
      runner.awaitWatched(repo);

      // A stranger forks: their own repository, from the owner's history, on their own PDS account.
      OwnerRepo fork =
          new OwnerRepo(
              pds.createAccount("stranger"), pds.pdsUrl(), "app-fork", tmp.resolve("fork"));
      fork.git("fetch", "-q", repo.workTree().toString(), "main");
      fork.git("reset", "-q", "--hard", "FETCH_HEAD");
      fork.commit(Map.of("x.txt", "stranger's change\n", "steal.sh", "echo $TOKEN\n"));
      String strangerHead = fork.push("fix");
      String base = repo.head();
      String strangers = new PullAuthor(fork).open(repo, "main", fork, "fix");

      // The owner's own pull, opened after it, is listed after it: once that one is checked, the
      // stranger's has been seen and passed over.
      String ownHead = branch(repo, "own", Map.of("own.txt", "own\n"));
      String own = new PullAuthor(repo).open(repo, "main", repo, "own");
      assertEquals(
          CheckStatus.SUCCESS, runner.awaitPullEnded(repo, own, ownHead, base, "ci").status());
      assertTrue(runner.pullChecks(repo, strangers).isEmpty(), "the stranger's pull did not run");

      Map<String, String> env = new HashMap<>(pds.environment());
      env.put("KNOTLESS_IDENTIFIER", repo.account.handle());
      env.put("KNOTLESS_PASSWORD", repo.account.password());
      env.put("KNOTLESS_CACHE_DIR", tmp.resolve("cli-cache").toString());
      env.put("KNOTLESS_CONFIG_DIR", tmp.resolve("cli-config").toString());
      Object[] asked = AllInOneIT.knotless(env, "rerun", repo.label(), "--pull", strangers);
      assertEquals(0, asked[0], String.valueOf(asked[1]));

      CheckRecord ran = runner.awaitPullEnded(repo, strangers, strangerHead, base, "ci");
      String log = log(runner, ran);
      assertEquals(CheckStatus.SUCCESS, ran.status(), log);
      assertTrue(log.contains("token=none"), log);
      assertTrue(!log.contains(TOKEN), log);

      // Once: the stranger moves on, and the next pass (the owner's pull moving) does not run it.
      fork.commit(Map.of("x.txt", "more\n"));
      String strangerNext = fork.push("fix");
      repo.git("checkout", "-q", "own");
      String ownNext = repo.commit(Map.of("own.txt", "own, again\n"));
      repo.push("own");
      repo.git("checkout", "-q", "main");
      runner.awaitPullEnded(repo, own, ownNext, base, "ci");
      assertNull(runner.pullCheck(repo, strangers, strangerNext, base, "ci"));
      assertEquals(1, runner.pullChecks(repo, strangers).size());
      assertNotNull(ran.startedAt());
    }
  }

  @Test
  void aWorkflowNamingOneRunnerInRunnersIsCheckedByThatRunnerAlone(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness one = new RunnerHarness(pds, tmp.resolve("one"), "one");
        RunnerHarness two = new RunnerHarness(pds, tmp.resolve("two"), "two")) {
      OwnerRepo repo = ownerRepo(pds, tmp);
      one.start(flags(one, appview, repo), repo.label());
      two.start(flags(two, appview, repo), repo.label());
      one.awaitWatched(repo);
      two.awaitWatched(repo);
      String step =
          """
          image: knotless-test/busybox:1
          steps:
            - name: say
              run: echo on $KNOTLESS_RUN_REF
          """;
      String sha =
          repo.commit(
              Map.of(
                  ".knotless/workflows/deploy.yml",
                  "on: {push: {}, pull: {}}\nrunners: [" + one.account.did() + "]\n" + step,
                  ".knotless/workflows/everywhere.yml",
                  "on: {push: {}, pull: {}}\n" + step));
      repo.push("main");
      String head = branch(repo, "change", Map.of("c.txt", "c\n"));
      String pull = new PullAuthor(repo).open(repo, "main", repo, "change");

      assertEquals(CheckStatus.SUCCESS, one.awaitEnded(repo, MAIN, sha, "deploy").status());
      assertEquals(
          CheckStatus.SUCCESS, one.awaitPullEnded(repo, pull, head, sha, "deploy").status());
      // Runner two filed everything else of the same push and pull, and nothing of deploy.
      two.awaitEnded(repo, MAIN, sha, "everywhere");
      two.awaitPullEnded(repo, pull, head, sha, "everywhere");
      assertNull(two.check(repo, MAIN, sha, "deploy"));
      assertNull(two.pullCheck(repo, pull, head, sha, "deploy"));
    }
  }

  @Test
  void aClosedPullsOldRunsArePrunedWhileAnOpenPullsAndRecentOnesStay(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = ownerRepo(pds, tmp);
      String head = branch(repo, "feature", Map.of("a.flag", "a\n"));
      String base = repo.head();
      String open = new PullAuthor(repo).open(repo, "main", repo, "feature");
      String closed = "at://" + repo.account.did() + "/dev.knotless.pull/3kzzzzzzzzzzz";
      XrpcClient asRunner = XrpcClient.create(pds.pdsUrl());
      asRunner.login(runner.account.handle(), runner.account.password());
      Instant now = Instant.now();
      String openOld =
          seedPull(runner, asRunner, repo, open, head, base, now.minus(Duration.ofDays(2)));
      String closedOld =
          seedPull(runner, asRunner, repo, closed, head, base, now.minus(Duration.ofDays(2)));
      String closedRecent =
          seedPull(runner, asRunner, repo, closed, base, base, now.minus(Duration.ofHours(1)));

      runner.start(flags(runner, appview, repo), repo.label());
      runner.awaitWatched(repo);
      RunnerHarness.await(
          "the closed pull's old run pruned",
          () -> {
            try {
              return !runner.checks(repo).containsKey(closedOld);
            } catch (java.io.IOException e) {
              return false;
            }
          });
      Set<String> left = runner.checks(repo).keySet();
      assertTrue(left.contains(openOld), "an open pull's newest run stays: " + left);
      assertTrue(left.contains(closedRecent), "a run ended an hour ago stays: " + left);
    }
  }

  private static String seedPull(
      RunnerHarness runner,
      XrpcClient asRunner,
      OwnerRepo repo,
      String pull,
      String head,
      String base,
      Instant at)
      throws Exception {
    String rkey = CheckKeys.pull(repo.account.did(), repo.key(), pull, head, base, "ci");
    CheckRecord r =
        new CheckRecord(
            "at://" + repo.account.did() + "/dev.knotless.repo/" + repo.key(),
            "refs/heads/feature",
            head,
            base,
            pull,
            "ci",
            CheckStatus.SUCCESS,
            at.minus(Duration.ofMinutes(5)),
            at.minus(Duration.ofMinutes(4)),
            at,
            List.of(),
            null,
            List.of(),
            null);
    asRunner.putRecord(runner.account.did(), CheckRecord.COLLECTION, rkey, r.toJson(), Swap.none());
    return rkey;
  }
}
