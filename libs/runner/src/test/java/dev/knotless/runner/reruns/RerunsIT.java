package dev.knotless.runner.reruns;

import static dev.knotless.runner.reruns.Stage.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Tid;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The owner's rerun requests and runs asked for by name, against the real PDS. */
@WithPds
class RerunsIT {

  static final String CI =
      """
      on: {push: {refs: [main], paths: ["src/**"]}}
      steps:
        - name: build
          run: echo built
      """;

  static final String LINT =
      """
      on: {push: {refs: [main]}}
      steps:
        - name: lint
          run: echo linted
      """;

  static final String SUITE =
      """
      on: {asked: {refs: [main]}}
      env: {GREETING: hello, TARGET: all}
      secrets: [TOKEN]
      steps:
        - name: suite
          run: echo "greeting=$GREETING target=$TARGET token=${TOKEN:-unset}"
      """;

  static final String RELEASE_ONLY =
      """
      on: {asked: {refs: [release]}}
      steps:
        - name: ship
          run: echo shipped
      """;

  @Test
  void aRunAskedByNameIsCancelledAtOnceByAStopAndRunsAgainWithItsVariablesAtTheNextStart(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Path marker = tmp.resolve("first-run-was-here");
    String slow =
        """
        on: {asked: {refs: [main]}}
        steps:
          - name: slow
            run: |
              echo "asked with $GREETING"
              if [ -f %s ]; then echo "second run"; else touch %s; sleep 120; fi
        """
            .formatted(marker, marker);
    try (Stage s = new Stage(pds, tmp, false)) {
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      // A long --stop-wait: runs by name must not get it.
      dev.knotless.runner.engine.Runner first = s.start("--stop-wait", "600");
      String sha = s.commit(Map.of(".knotless/workflows/slow.yml", slow));
      s.push("main");
      s.knotless("rerun", s.label(), "--ref", "main", "--workflow", "slow", "--var", "GREETING=hi");
      s.awaitCheck(MAIN, sha, "slow", c -> c.status() == CheckStatus.RUNNING);
      Stage.await("the step to start", () -> java.nio.file.Files.exists(marker));

      long t0 = System.nanoTime();
      first.stop();
      long stopMillis = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(stopMillis < 30_000, "the stop took " + stopMillis + " ms, not --stop-wait");
      CheckRecord cut = s.check(MAIN, sha, "slow");
      assertEquals(CheckStatus.CANCELLED, cut.status(), String.valueOf(cut));

      s.start();
      CheckRecord again = s.awaitCheck(MAIN, sha, "slow", c -> c.status() == CheckStatus.SUCCESS);
      String log = s.log(again);
      assertTrue(log.contains("==> variable GREETING=\"hi\"\n"), log);
      assertTrue(log.contains("asked with hi\nsecond run\n"), log);
    }
  }

  @Test
  void aRerunOfARefRunsEveryWorkflowAgainAtTheSameCommit(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (Stage s = new Stage(pds, tmp, false)) {
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      s.start();
      String sha =
          s.commit(
              Map.of(
                  ".knotless/workflows/ci.yml", CI,
                  ".knotless/workflows/lint.yml", LINT,
                  "src/a.txt", "a\n"));
      s.push("main");
      CheckRecord ci = s.awaitEnded(MAIN, sha, "ci");
      CheckRecord lint = s.awaitEnded(MAIN, sha, "lint");

      s.knotless("rerun", s.label(), "--ref", "main");

      // Both run again at the commit, paths or not: nothing moved.
      CheckRecord ci2 =
          s.awaitCheck(
              MAIN, sha, "ci", c -> c.createdAt().isAfter(ci.createdAt()) && c.status().ended());
      CheckRecord lint2 =
          s.awaitCheck(
              MAIN,
              sha,
              "lint",
              c -> c.createdAt().isAfter(lint.createdAt()) && c.status().ended());
      assertEquals(CheckStatus.SUCCESS, ci2.status(), String.valueOf(ci2));
      assertEquals(CheckStatus.SUCCESS, lint2.status(), String.valueOf(lint2));
      assertTrue(s.log(ci2).contains("built"));
    }
  }

  @Test
  void aRerunOfOneWorkflowRunsOnlyThatOneAndABadRequestDoesNotStopIt(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Stage s = new Stage(pds, tmp, false)) {
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      s.start();
      String sha =
          s.commit(Map.of(".knotless/workflows/ci.yml", CI, ".knotless/workflows/lint.yml", LINT));
      s.push("main");
      CheckRecord ci = s.awaitEnded(MAIN, sha, "ci");
      CheckRecord lint = s.awaitEnded(MAIN, sha, "lint");

      // A request of a shape the runner does not know, then a good one: the good one acts.
      ObjectNode bad = JsonNodeFactory.instance.objectNode();
      bad.put("repo", s.key());
      bad.put("ref", "refs/heads/main");
      bad.put("vars", 5);
      bad.put("createdAt", "2026-11-29T00:00:00.000Z");
      s.ownerClient.putRecord(
          s.owner.did(), "dev.knotless.rerun", s.key() + "." + Tid.next(), bad, Swap.none());
      s.knotless("rerun", s.label(), "--ref", "main", "--workflow", "lint");

      CheckRecord lint2 =
          s.awaitCheck(
              MAIN,
              sha,
              "lint",
              c -> c.createdAt().isAfter(lint.createdAt()) && c.status().ended());
      assertEquals(CheckStatus.SUCCESS, lint2.status(), String.valueOf(lint2));
      assertEquals(ci.createdAt(), s.check(MAIN, sha, "ci").createdAt(), "ci was not run again");
    }
  }

  @Test
  void aWorkflowAskedForByNameGetsItsVariablesWrittenAtTheTopOfItsLog(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Stage s = new Stage(pds, tmp, false)) {
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      s.start();
      String sha =
          s.commit(
              Map.of(
                  ".knotless/workflows/suite.yml", SUITE,
                  ".knotless/workflows/ship.yml", RELEASE_ONLY));
      s.push("main");
      // Neither runs on the push.
      Stage.await(
          "the push's pass",
          () ->
              new dev.knotless.runner.state.JsonStateStore(s.state())
                  .load(s.owner.did() + "/" + keyOf(s))
                  .map(st -> st.refs().containsKey(MAIN) && st.refs().get(MAIN) >= 2)
                  .orElse(false));

      s.knotless(
          "rerun",
          s.label(),
          "--ref",
          "main",
          "--workflow",
          "suite",
          "--var",
          "GREETING=hi there",
          "--var",
          "TOKEN=stolen");
      CheckRecord suite = s.awaitEnded(MAIN, sha, "suite");
      assertEquals(CheckStatus.SUCCESS, suite.status(), String.valueOf(suite));
      String log = s.log(suite);
      assertTrue(
          log.startsWith("==> suite asked for by name at refs/heads/main, with variables:\n"), log);
      assertTrue(log.contains("==> variable GREETING=\"hi there\"\n"), log);
      assertTrue(
          log.contains("==> variable TOKEN dropped: it names a secret of the workflow"), log);
      assertTrue(log.contains("greeting=hi there target=all token=unset"), log);

      s.knotless("rerun", s.label(), "--ref", "main", "--workflow", "ship");
      CheckRecord ship = s.awaitEnded(MAIN, sha, "ship");
      assertEquals(CheckStatus.ERROR, ship.status());
      assertTrue(ship.note().contains("ship may not run by name at refs/heads/main"), ship.note());

      s.knotless("rerun", s.label(), "--ref", "main", "--workflow", "nosuch");
      CheckRecord none = s.awaitEnded(MAIN, sha, "nosuch");
      assertEquals(CheckStatus.ERROR, none.status());
      assertTrue(none.note().contains("no workflow named nosuch"), none.note());

      s.knotless("rerun", s.label(), "--ref", "main", "--workflow", "suite", "--var", "1BAD=x");
      CheckRecord badVars =
          s.awaitCheck(
              MAIN,
              sha,
              "suite",
              c -> c.createdAt().isAfter(suite.createdAt()) && c.status().ended());
      assertEquals(CheckStatus.ERROR, badVars.status(), String.valueOf(badVars));
      assertTrue(badVars.note().contains("1BAD"), badVars.note());
    }
  }

  private static String keyOf(Stage s) {
    try {
      return s.key();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
