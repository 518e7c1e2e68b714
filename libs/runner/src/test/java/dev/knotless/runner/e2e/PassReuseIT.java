package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A push to the default branch taking a trusted pull's pass at the same tree, on the real PDS and
 * daemon: the workflow that may be reused is filed success without running, and each exception runs
 * again.
 */
@WithPds
class PassReuseIT {

  /** Every run prints a value of its own, so a log copied is told from a run made again. */
  private static final String NONCE = "echo nonce=$(cat /proc/sys/kernel/random/uuid)";

  private static String workflow(String extra, String laterStep) {
    return """
        on: {push: {refs: [refs/heads/main]}, pull: {base: [refs/heads/main]}}
        image: knotless-test/git:1
        %s
        steps:
          - name: check
            run: %s
        %s
        """
        .formatted(extra, NONCE, laterStep);
  }

  private static final Map<String, String> WORKFLOWS =
      Map.of(
          ".knotless/workflows/ci.yml", workflow("", ""),
          ".knotless/workflows/secret.yml", workflow("secrets: [TOKEN]", ""),
          ".knotless/workflows/deploy.yml", workflow("superseded: finish", ""),
          ".knotless/workflows/partial.yml",
              workflow(
                  "",
                  """
                    - name: main only
                      run: echo on main
                      on: {refs: [refs/heads/main]}
                  """));

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  @Test
  void aMergedTrustedPullsPassIsTakenButNotForSecretsDeploysLeftOutStepsOrAChangedCheck(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      Map<String, String> files = new LinkedHashMap<>(WORKFLOWS);
      files.put("README.md", "hello\n");
      repo.commit(files);
      repo.push("main");
      runner.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      Files.createDirectories(runner.dir);
      Path secrets = runner.dir.resolve("secrets.json");
      Files.writeString(secrets, "{\"" + repo.label() + "\": {\"TOKEN\": \"t0ken-value\"}}");
      runner.start(
          List.of("--executor", "docker", "--pulls", "--secrets", secrets.toString()),
          repo.label());
      runner.awaitWatched(repo);
      String base = repo.git("rev-parse", "main").strip();

      // A trusted pull whose head contains main: checked as itself, so the merge keeps its tree.
      String head = branch(repo, "feature", "a.txt");
      String pull = new PullAuthor(repo).open(repo, "main", repo, "feature");
      Map<String, String> pullNonce = new LinkedHashMap<>();
      for (String w : List.of("ci", "secret", "deploy", "partial")) {
        CheckRecord c = runner.awaitPullEnded(repo, pull, head, base, w);
        assertEquals(CheckStatus.SUCCESS, c.status(), w + ": " + log(runner, c));
        pullNonce.put(w, nonce(log(runner, c)));
      }

      repo.git("merge", "-q", "--ff-only", "feature");
      repo.push("main");
      CheckRecord ci = runner.awaitEnded(repo, "refs/heads/main", head, "ci");
      String ciLog = log(runner, ci);
      assertEquals(CheckStatus.SUCCESS, ci.status(), ciLog);
      String pullCheck =
          "at://"
              + runner.account.did()
              + "/dev.knotless.check/"
              + CheckKeys.pull(repo.account.did(), repo.key(), pull, head, base, "ci");
      assertEquals("took the pass of " + pullCheck + " (" + pull + ") at the same tree", ci.note());
      assertTrue(ciLog.startsWith("==> the tree "), ciLog);
      assertTrue(ciLog.contains("its result is taken and nothing is run again"), ciLog);
      assertEquals(pullNonce.get("ci"), nonce(ciLog), "the pull's log, copied: nothing ran");
      assertEquals(1, ci.steps().size());
      assertNull(ci.baseCommit());
      assertNull(ci.pull());

      for (String w : List.of("secret", "deploy", "partial")) {
        CheckRecord c = runner.awaitEnded(repo, "refs/heads/main", head, w);
        String log = log(runner, c);
        assertEquals(CheckStatus.SUCCESS, c.status(), w + ": " + log);
        assertTrue(c.note() == null || !c.note().contains("took the pass"), w + ": " + c.note());
        assertNotEquals(pullNonce.get(w), nonce(log), w + " ran again at the push");
      }
      assertTrue(
          log(runner, runner.awaitEnded(repo, "refs/heads/main", head, "partial"))
              .contains("on main"),
          "the step the pull left out ran at the push");

      // A pass whose check no longer reads success is not taken.
      String base2 = head;
      String head2 = branch(repo, "second", "b.txt");
      String pull2 = new PullAuthor(repo).open(repo, "main", repo, "second");
      CheckRecord passed = runner.awaitPullEnded(repo, pull2, head2, base2, "ci");
      assertEquals(CheckStatus.SUCCESS, passed.status());
      XrpcClient asRunner = XrpcClient.create(pds.pdsUrl());
      asRunner.login(runner.account.handle(), runner.account.password());
      String rkey = CheckKeys.pull(repo.account.did(), repo.key(), pull2, head2, base2, "ci");
      asRunner.putRecord(
          runner.account.did(),
          CheckRecord.COLLECTION,
          rkey,
          passed.ended(CheckStatus.FAILURE, passed.endedAt(), passed.steps(), "changed").toJson(),
          Swap.none());
      repo.git("merge", "-q", "--ff-only", "second");
      repo.push("main");
      CheckRecord ran = runner.awaitEnded(repo, "refs/heads/main", head2, "ci");
      String ranLog = log(runner, ran);
      assertEquals(CheckStatus.SUCCESS, ran.status(), ranLog);
      assertFalse(ranLog.contains("its result is taken"), ranLog);
      assertNotEquals(nonce(log(runner, passed)), nonce(ranLog));
    }
  }

  /** Commits one file on a new branch off main, pushes it, and goes back to main. */
  private static String branch(OwnerRepo repo, String name, String file) throws Exception {
    repo.git("checkout", "-q", "-b", name, "main");
    String sha = repo.commit(Map.of(file, name + "\n"));
    repo.push(name);
    repo.git("checkout", "-q", "main");
    return sha;
  }

  private static String log(RunnerHarness runner, CheckRecord c) throws Exception {
    return new String(runner.log(c), StandardCharsets.UTF_8);
  }

  private static String nonce(String log) {
    Matcher m = Pattern.compile("nonce=([0-9a-f-]{36})").matcher(log);
    assertTrue(m.find(), log);
    return m.group(1);
  }
}
