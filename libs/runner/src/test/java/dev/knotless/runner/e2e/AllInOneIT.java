package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A push to a real PDS, heard on its firehose, run by the all-in-one runner, filed as a check. */
@WithPds
class AllInOneIT {
  static final String MAIN = "refs/heads/main";

  static final String PASSING =
      """
      on: {push: {refs: [main]}}
      steps:
        - name: hello
          run: echo "hello from $KNOTLESS_RUN_REF at $KNOTLESS_RUN_SHA"
        - name: files
          run: test -f README.md && echo "checked out"
      """;

  static final String FAILING =
      """
      on: {push: {}}
      steps:
        - name: ok
          run: echo fine
        - name: broken
          run: echo "about to fail"; exit 3
        - name: after
          run: echo "never printed"
      """;

  /**
   * An owner's repository with one commit, pushed, and a runner watching it past its first pass.
   */
  static OwnerRepo watchedRepo(PdsInstance pds, Path tmp, RunnerHarness runner, List<String> flags)
      throws Exception {
    OwnerRepo repo =
        new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
    repo.commit(Map.of("README.md", "hello\n"));
    repo.push("main");
    runner.start(flags, repo.label());
    runner.awaitWatched(repo);
    return repo;
  }

  @Test
  void aPushRunsAndPassesWithTheStepOutputInTheLog(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = watchedRepo(pds, tmp, runner, List.of());
      String sha = repo.commit(Map.of(".knotless/workflows/ci.yml", PASSING));
      repo.push("main");

      CheckRecord c = runner.awaitEnded(repo, MAIN, sha, "ci");
      assertEquals(CheckStatus.SUCCESS, c.status(), String.valueOf(c));
      assertEquals(List.of("hello", "files"), c.steps().stream().map(StepResult::name).toList());
      assertTrue(
          c.steps().stream().allMatch(s -> s.status() == StepResult.Status.SUCCESS),
          c.steps().toString());
      assertNotNull(c.startedAt());
      assertNotNull(c.endedAt());
      assertEquals("at://" + repo.account.did() + "/dev.knotless.repo/app", c.repo());
      String log = new String(runner.log(c), StandardCharsets.UTF_8);
      assertTrue(log.contains("hello from refs/heads/main at " + sha), log);
      assertTrue(log.contains("checked out"), log);

      // The owner names the runner, and knotless checks finds what it filed.
      Map<String, String> env = new java.util.HashMap<>(pds.environment());
      env.put("KNOTLESS_IDENTIFIER", repo.account.handle());
      env.put("KNOTLESS_PASSWORD", repo.account.password());
      env.put("KNOTLESS_CACHE_DIR", tmp.resolve("cli-cache").toString());
      env.put("KNOTLESS_CONFIG_DIR", tmp.resolve("cli-config").toString());
      assertEquals(0, knotless(env, "runners", repo.label(), "add", runner.account.did())[0]);
      Object[] listed = knotless(env, "checks", "knotless://" + repo.label(), "--ref", "main");
      assertEquals(0, listed[0], String.valueOf(listed[1]));
      String table = (String) listed[1];
      assertTrue(
          table
              .lines()
              .anyMatch(
                  l ->
                      l.contains(" ci ")
                          && l.contains(sha.substring(0, 7))
                          && l.contains("success")),
          table);
    }
  }

  @Test
  void aPushWhoseWorkflowFilesCameInAnOlderPushThanThoseItsPassReadsRunsThem(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      // The workflow's tree is in the first pack; four pushes after it touch only the README, so
      // a pushed pass, reading the newest four packs, gets the tip's commit and root tree first
      // and the workflow's tree only when the mirror's history check fetches the first pack.
      repo.commit(Map.of(".knotless/workflows/ci.yml", PASSING, "README.md", "0\n"));
      repo.push("main");
      for (int i = 1; i <= 3; i++) {
        repo.commit(Map.of("README.md", i + "\n"));
        repo.push("main");
      }
      runner.start(List.of(), repo.label());
      runner.awaitWatched(repo);
      String sha = repo.commit(Map.of("README.md", "4\n"));
      repo.push("main");

      CheckRecord c = runner.awaitEnded(repo, MAIN, sha, "ci");
      assertEquals(CheckStatus.SUCCESS, c.status(), String.valueOf(c));
    }
  }

  /** Runs the knotless CLI in-process; returns the exit code and what it printed. */
  static Object[] knotless(Map<String, String> env, String... argv) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.PrintStream ps = new java.io.PrintStream(out, true, StandardCharsets.UTF_8);
    int exit =
        dev.knotless.cli.KnotlessCli.run(
            List.of(argv),
            new dev.knotless.storage.cli.CliContext(
                env, ps, ps, () -> dev.knotless.storage.KnotlessRepos.fromEnvironment(env)));
    return new Object[] {exit, out.toString(StandardCharsets.UTF_8)};
  }

  @Test
  void aFailingStepFailsTheCheckAndSkipsTheStepsAfterIt(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = watchedRepo(pds, tmp, runner, List.of());
      String sha = repo.commit(Map.of(".knotless/workflows/fails.yml", FAILING));
      repo.push("main");

      CheckRecord c = runner.awaitEnded(repo, MAIN, sha, "fails");
      assertEquals(CheckStatus.FAILURE, c.status(), String.valueOf(c));
      assertEquals(
          List.of(StepResult.Status.SUCCESS, StepResult.Status.FAILURE, StepResult.Status.SKIPPED),
          c.steps().stream().map(StepResult::status).toList());
      String log = new String(runner.log(c), StandardCharsets.UTF_8);
      assertTrue(log.contains("about to fail"), log);
      assertTrue(!log.contains("never printed"), log);
    }
  }

  @Test
  void aBrokenWorkflowAndTwoWorkflowsSharingANameAreFiledError(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = watchedRepo(pds, tmp, runner, List.of());
      String sha =
          repo.commit(
              Map.of(
                  ".knotless/workflows/broken.yml", "on: {push: {}}\nsteps: [ {run: \n",
                  ".knotless/workflows/one.yml",
                      "name: twin\non: {push: {}}\nsteps: [{run: 'true'}]\n",
                  ".knotless/workflows/two.yml",
                      "name: twin\non: {push: {}}\nsteps: [{run: 'true'}]\n",
                  ".knotless/workflows/ok.yml", "on: {push: {}}\nsteps: [{run: 'echo ok'}]\n"));
      repo.push("main");

      CheckRecord ok = runner.awaitEnded(repo, MAIN, sha, "ok");
      assertEquals(CheckStatus.SUCCESS, ok.status());
      CheckRecord broken = runner.awaitEnded(repo, MAIN, sha, "broken");
      assertEquals(CheckStatus.ERROR, broken.status(), String.valueOf(broken));
      assertNotNull(broken.note());
      CheckRecord twin = runner.awaitEnded(repo, MAIN, sha, "twin");
      assertEquals(CheckStatus.ERROR, twin.status(), String.valueOf(twin));
      assertTrue(twin.note().contains("share the workflow name"), twin.note());
      assertEquals(3, runner.checks(repo).size(), runner.checks(repo).toString());
    }
  }

  @Test
  void aPathsFilterThatMatchesNothingChangedFilesSuccessWithEveryStepSkipped(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = watchedRepo(pds, tmp, runner, List.of());
      String docs =
          """
          on: {push: {paths: ["docs/**"]}}
          steps:
            - name: build docs
              run: echo building
            - name: publish
              run: echo publishing
          """;
      String first = repo.commit(Map.of(".knotless/workflows/docs.yml", docs, "docs/a.md", "a\n"));
      repo.push("main");
      assertEquals(CheckStatus.SUCCESS, runner.awaitEnded(repo, MAIN, first, "docs").status());

      String second = repo.commit(Map.of("README.md", "changed, docs untouched\n"));
      repo.push("main");
      CheckRecord c = runner.awaitEnded(repo, MAIN, second, "docs");
      assertEquals(CheckStatus.SUCCESS, c.status(), String.valueOf(c));
      assertEquals(2, c.steps().size());
      assertTrue(
          c.steps().stream().allMatch(s -> s.status() == StepResult.Status.SKIPPED),
          c.steps().toString());
      assertTrue(c.note() != null && c.note().contains("docs/**"), String.valueOf(c.note()));
      assertEquals(null, c.log(), "a skipped workflow takes no job, so it has no log");
    }
  }

  @Test
  void theFirstWatchRunsNothingUntilTheNextPush(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      String before =
          repo.commit(Map.of(".knotless/workflows/ci.yml", PASSING, "README.md", "x\n"));
      repo.push("main");
      repo.git("checkout", "-q", "-b", "topic");
      repo.commit(Map.of("topic.txt", "t\n"));
      repo.push("topic");
      repo.git("checkout", "-q", "main");

      runner.start(List.of(), repo.label());
      runner.awaitWatched(repo);
      String after = repo.commit(Map.of("README.md", "y\n"));
      repo.push("main");

      assertEquals(CheckStatus.SUCCESS, runner.awaitEnded(repo, MAIN, after, "ci").status());
      Map<String, CheckRecord> all = runner.checks(repo);
      assertEquals(1, all.size(), "only the push after the runner started runs: " + all);
      assertEquals(null, runner.check(repo, MAIN, before, "ci"));
    }
  }

  @Test
  void aRingWithNothingNewOnThePdsRunsNothing(PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = watchedRepo(pds, tmp, runner, List.of());
      String first = repo.commit(Map.of(".knotless/workflows/ci.yml", PASSING));
      repo.push("main");
      runner.awaitEnded(repo, MAIN, first, "ci");
      String firstCid =
          runner
              .reader
              .getRecord(
                  runner.account.did(),
                  CheckRecord.COLLECTION,
                  dev.knotless.runner.check.CheckKeys.push(
                      repo.account.did(), repo.key(), MAIN, first, "ci"))
              .cid();

      // A rerun record that names neither a ref nor a pull rings the door on the firehose; the
      // pass reads the PDS, finds every ref where it last ran, and files nothing.
      com.fasterxml.jackson.databind.node.ObjectNode empty =
          com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
      empty.put("createdAt", "2026-11-29T10:00:00.000Z");
      repo.client.putRecord(
          repo.account.did(),
          "dev.knotless.rerun",
          repo.key() + "." + dev.knotless.atproto.Tid.next(),
          empty,
          dev.knotless.atproto.Swap.none());
      String second = repo.commit(Map.of("README.md", "again\n"));
      repo.push("main");

      assertEquals(CheckStatus.SUCCESS, runner.awaitEnded(repo, MAIN, second, "ci").status());
      assertEquals(2, runner.checks(repo).size(), runner.checks(repo).toString());
      String cidAfter =
          runner
              .reader
              .getRecord(
                  runner.account.did(),
                  CheckRecord.COLLECTION,
                  dev.knotless.runner.check.CheckKeys.push(
                      repo.account.did(), repo.key(), MAIN, first, "ci"))
              .cid();
      assertEquals(firstCid, cidAfter, "the earlier commit's check was not filed again");
    }
  }
}
