package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.AllInOneIT.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With KNOTLESS_APPVIEW, the all-in-one runner sends what a run prints to the appview's {@code
 * dev.knotless.putRunOutput} while it runs, as the check-writer does, with a service token of its
 * own account.
 */
@WithPds
class LiveOutputIT {
  static final String SLOW =
      """
      on: {push: {}}
      steps:
        - name: one
          run: echo "first line"; sleep 8; echo "second line"
        - name: two
          run: printf 'unended last line'
      """;

  @Test
  void aRunsOutputReachesTheAppviewWhileItRunsAndWholeAtItsEnd(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      runner.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      OwnerRepo repo = AllInOneIT.watchedRepo(pds, tmp, runner, List.of());
      String sha = repo.commit(Map.of(".knotless/workflows/ci.yml", SLOW));
      repo.push("main");

      RunnerHarness.await(
          "the first line at the appview",
          () -> appview.runOutputs().stream().anyMatch(o -> text(o).contains("first line")));
      CheckRecord running = runner.check(repo, MAIN, sha, "ci");
      assertEquals(CheckStatus.RUNNING, running.status(), "sent while the step still sleeps");
      ObjectNode first =
          appview.runOutputs().stream()
              .filter(o -> text(o).contains("first line"))
              .findFirst()
              .orElseThrow();
      assertEquals("one", first.path("step").asText(), "each send names the step going");

      CheckRecord ended = runner.awaitEnded(repo, MAIN, sha, "ci");
      assertEquals(CheckStatus.SUCCESS, ended.status(), String.valueOf(ended));
      List<ObjectNode> calls = appview.runOutputs();
      String uri =
          "at://"
              + runner.account.did()
              + "/dev.knotless.check/"
              + CheckKeys.push(repo.account.did(), repo.key(), MAIN, sha, "ci");
      StringBuilder rebuilt = new StringBuilder();
      for (ObjectNode o : calls) {
        assertEquals(uri, o.path("check").asText());
        assertEquals(runner.account.did(), o.path("iss").asText(), "the runner's own token");
        assertEquals(rebuilt.length(), o.path("offset").asLong(), "no gap, nothing twice");
        rebuilt.append(text(o));
      }
      assertEquals(
          new String(runner.log(ended), StandardCharsets.UTF_8),
          rebuilt.toString(),
          "the sends rebuild the log, its unended last line included");
      assertEquals(
          1, calls.stream().filter(o -> o.path("ended").asBoolean()).count(), "one end: " + calls);
      assertTrue(calls.get(calls.size() - 1).path("ended").asBoolean(), "the end comes last");
      assertEquals(2, calls.get(calls.size() - 1).path("steps").size(), "both steps ended");
    }
  }

  static final String FLOOD =
      """
      on: {push: {}}
      steps:
        - name: flood
          run: |
            seq 1 200000 | sed 's/.*/line-&-abcdefghijklmnopqrstuvwxyz-0123456789/'
            head -c 1048575 /dev/zero | tr '\\0' x; echo
            printf 'progress 10%%\\rprogress 20%%\\r'
            printf 'the end'
      """;

  @Test
  void aFloodOf200000LinesReachesTheAppviewAsTheLogsOwnBytes(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      runner.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      OwnerRepo repo = AllInOneIT.watchedRepo(pds, tmp, runner, List.of());
      String sha = repo.commit(Map.of(".knotless/workflows/ci.yml", FLOOD));
      repo.push("main");

      CheckRecord ended = runner.awaitEnded(repo, MAIN, sha, "ci");
      assertEquals(CheckStatus.SUCCESS, ended.status(), String.valueOf(ended));
      byte[] log = runner.log(ended);
      String whole = new String(log, StandardCharsets.UTF_8);
      assertTrue(whole.contains("bytes of output cut here"), "a flood this size is cut");
      assertTrue(
          whole.endsWith("progress 10%\rprogress 20%\rthe end"),
          "the tail is there: " + whole.substring(whole.length() - 300).replace("\r", "\\r"));
      // What is sent may lag and, by design, lose its oldest past a megabyte held or its last
      // pieces past the final send's five seconds; what it must never do is send other bytes.
      long next = 0;
      long sent = 0;
      for (ObjectNode o : appview.runOutputs()) {
        long offset = o.path("offset").asLong();
        byte[] piece = text(o).getBytes(StandardCharsets.UTF_8);
        assertTrue(offset >= next, "nothing sent twice, nothing out of order");
        assertEquals(
            new String(log, (int) offset, piece.length, StandardCharsets.UTF_8),
            text(o),
            "what was sent at " + offset + " is the log's own bytes there");
        next = offset + piece.length;
        sent += piece.length;
      }
      // At least the megabyte held at the end goes in the final sends, unless their five seconds
      // run out first; a quarter of it is far more than a toy's worth of pieces to check.
      assertTrue(sent >= 1 << 18, "so little of the flood was sent: " + sent + " bytes");
    }
  }

  private static String text(ObjectNode o) {
    return o.path("text").asText();
  }
}
