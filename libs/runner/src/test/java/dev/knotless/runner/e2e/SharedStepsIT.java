package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shared steps on the real PDS and daemon: a step file of another account's repository, read at the
 * commit the lock file pins, put in place of a {@code uses} step with only the secrets passed to
 * it, and what it leaves running ended before the next step.
 */
@WithPds
class SharedStepsIT {

  private static final String TOKEN = "shared-token-value-1";
  private static final String OTHER = "other-secret-value-2";

  /** Asks for both secrets; is passed one. Leaves a process behind holding what it was given. */
  private static final String STEP_FILE =
      """
      secrets: [TOKEN, OTHER]
      steps:
        - name: show
          run: |
            echo "shared token=${TOKEN:+set} other=${OTHER:+set}"
            sleep 300 &
            echo $! > leftover.pid
      """;

  private static String workflow(String uses) {
    return """
        on: {push: {refs: [refs/heads/main]}}
        image: knotless-test/git:1
        secrets: [TOKEN, OTHER]
        steps:
          - name: tools
            uses: %s
            secrets: [TOKEN]
          - name: after
            run: |
              echo "after token=${TOKEN:+set} other=${OTHER:+set}"
              if [ -e /proc/$(cat leftover.pid) ]; then echo leftover alive; else echo leftover gone; fi
        """
        .formatted(uses);
  }

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  @Test
  void aSharedStepRunsAtTheLockedCommitWithOnlyThePassedSecretAndLeavesNothingRunning(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo tools =
          new OwnerRepo(pds.createAccount("tools"), pds.pdsUrl(), "tools", tmp.resolve("tools"));
      String locked = tools.commit(Map.of(".knotless/steps/greet.yml", STEP_FILE));
      tools.push("main");
      // A later commit the lock does not name: what runs is the locked one.
      tools.commit(Map.of(".knotless/steps/greet.yml", STEP_FILE.replace("shared", "NEWER")));
      tools.push("main");

      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      repo.commit(Map.of("README.md", "hello\n"));
      repo.push("main");
      Files.createDirectories(runner.dir);
      Path secrets = runner.dir.resolve("secrets.json");
      Files.writeString(
          secrets,
          "{\""
              + repo.label()
              + "\": {\"TOKEN\": \""
              + TOKEN
              + "\", \"OTHER\": \""
              + OTHER
              + "\"}}");
      runner.start(List.of("--executor", "docker", "--secrets", secrets.toString()), repo.label());
      runner.awaitWatched(repo);

      String lock =
          "{\"steps\": {\""
              + tools.label()
              + "\": {\"did\": \""
              + tools.account.did()
              + "\", \"key\": \""
              + tools.key()
              + "\", \"commit\": \""
              + locked
              + "\"}}}";
      String commit =
          repo.commit(
              Map.of(
                  ".knotless/lock.json",
                  lock,
                  ".knotless/workflows/ci.yml",
                  workflow(tools.label() + "/.knotless/steps/greet.yml"),
                  ".knotless/workflows/missing.yml",
                  workflow(tools.label() + "/.knotless/steps/nothere.yml"),
                  ".knotless/workflows/unlocked.yml",
                  workflow("someone.test/other/.knotless/steps/x.yml")));
      repo.push("main");

      CheckRecord ci = runner.awaitEnded(repo, "refs/heads/main", commit, "ci");
      String log = new String(runner.log(ci), StandardCharsets.UTF_8);
      assertEquals(CheckStatus.SUCCESS, ci.status(), log);
      assertEquals(
          List.of("tools / show", "after"), ci.steps().stream().map(StepResult::name).toList());
      assertTrue(log.contains("shared token=set other=\n"), "passed TOKEN alone: " + log);
      assertFalse(log.contains("NEWER"), "the locked commit's file ran: " + log);
      assertTrue(
          Pattern.compile("ended [1-9][0-9]* processes the step left running").matcher(log).find(),
          log);
      assertTrue(log.contains("after token=set other=set"), log);
      assertTrue(log.contains("leftover gone"), log);
      assertFalse(log.contains(TOKEN) || log.contains(OTHER), log);

      CheckRecord missing = runner.awaitEnded(repo, "refs/heads/main", commit, "missing");
      assertEquals(CheckStatus.ERROR, missing.status());
      assertTrue(
          missing.note().contains("there is no .knotless/steps/nothere.yml"), missing.note());
      CheckRecord unlocked = runner.awaitEnded(repo, "refs/heads/main", commit, "unlocked");
      assertEquals(CheckStatus.ERROR, unlocked.status());
      assertTrue(
          unlocked.note().contains(".knotless/lock.json does not lock someone.test/other"),
          unlocked.note());
    }
  }

  @Test
  void anOwnersPullWhoseLockBringsAStrangersStepsRunsOnlyWhenTheOwnerAsks(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo stranger =
          new OwnerRepo(pds.createAccount("mal"), pds.pdsUrl(), "kit", tmp.resolve("kit"));
      String locked =
          stranger.commit(
              Map.of(".knotless/steps/s.yml", "steps:\n  - name: s\n    run: echo kit ran\n"));
      stranger.push("main");

      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      repo.commit(
          Map.of(
              ".knotless/workflows/ci.yml",
              "on: {pull: {base: [refs/heads/main]}}\nimage: knotless-test/git:1\n"
                  + "steps:\n  - name: a\n    run: echo own ran\n"));
      repo.push("main");
      String base = repo.head();
      runner.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      runner.start(List.of("--executor", "docker", "--pulls"), repo.label());
      runner.awaitWatched(repo);

      // The owner's own branch, but it locks steps from an account that does not write here.
      repo.git("checkout", "-q", "-b", "kit", "main");
      String kitHead =
          repo.commit(
              Map.of(
                  ".knotless/lock.json",
                  "{\"steps\": {\""
                      + stranger.label()
                      + "\": {\"did\": \""
                      + stranger.account.did()
                      + "\", \"key\": \""
                      + stranger.key()
                      + "\", \"commit\": \""
                      + locked
                      + "\"}}}",
                  ".knotless/workflows/ci.yml",
                  "on: {pull: {base: [refs/heads/main]}}\nimage: knotless-test/git:1\n"
                      + "steps:\n  - name: kit\n    uses: "
                      + stranger.label()
                      + "/.knotless/steps/s.yml\n"));
      repo.push("kit");
      repo.git("checkout", "-q", "main");
      String kit = new PullAuthor(repo).open(repo, "main", repo, "kit");
      // A plain pull opened after it: once it is checked, the pass has been past the first.
      repo.git("checkout", "-q", "-b", "plain", "main");
      String plainHead = repo.commit(Map.of("p.txt", "p\n"));
      repo.push("plain");
      repo.git("checkout", "-q", "main");
      String plain = new PullAuthor(repo).open(repo, "main", repo, "plain");
      assertEquals(
          CheckStatus.SUCCESS, runner.awaitPullEnded(repo, plain, plainHead, base, "ci").status());
      assertTrue(
          runner.pullChecks(repo, kit).isEmpty(), "the pull bringing a stranger's steps ran");

      Map<String, String> env = new HashMap<>(pds.environment());
      env.put("KNOTLESS_IDENTIFIER", repo.account.handle());
      env.put("KNOTLESS_PASSWORD", repo.account.password());
      env.put("KNOTLESS_CACHE_DIR", tmp.resolve("cli-cache").toString());
      env.put("KNOTLESS_CONFIG_DIR", tmp.resolve("cli-config").toString());
      Object[] asked = AllInOneIT.knotless(env, "rerun", repo.label(), "--pull", kit);
      assertEquals(0, asked[0], String.valueOf(asked[1]));
      CheckRecord ran = runner.awaitPullEnded(repo, kit, kitHead, base, "ci");
      String log = new String(runner.log(ran), StandardCharsets.UTF_8);
      assertEquals(CheckStatus.SUCCESS, ran.status(), log);
      assertTrue(log.contains("kit ran"), log);
    }
  }
}
