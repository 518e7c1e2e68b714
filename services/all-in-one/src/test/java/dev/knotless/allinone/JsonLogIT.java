package dev.knotless.allinone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.testing.MetricsTable;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code knotless-run --log-json}: every line it prints is one JSON object with the
 * fields the services' lines have, and each line logged while a run goes carries the run's check
 * key and its repository. Its {@code /q/metrics} exports what docs/metrics.md gives the all-in-one,
 * and nothing of ours it does not.
 */
@WithPds
class JsonLogIT {
  static final String QUICK =
      """
      on: {push: {}}
      steps:
        - name: quick
          run: echo "quick ran"
      """;

  @Test
  void everyLineIsAJsonObjectAndARunsLinesNameTheRunAndItsRepository(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    PackagedRunner r = new PackagedRunner(pds, tmp);
    r.owner.commit(Map.of("README.md", "hello\n"));
    r.owner.push("main");
    String stateKey = r.owner.account.did() + "/" + r.owner.key();
    Process p = r.start("--log-json");
    List<String> disagreements;
    String sha;
    try {
      // The first pass takes the head as it is; the push after it runs.
      r.await(
          "the first pass",
          () -> new JsonStateStore(tmp.resolve("state.json")).load(stateKey).isPresent());
      r.owner.commit(Map.of(".knotless/workflows/quick.yml", QUICK));
      sha = r.owner.push("main");
      r.await("the quick run", () -> r.status(sha, "quick") == CheckStatus.SUCCESS);
      String metrics = r.metrics();
      assertTrue(
          metrics.contains(
              "knotless_run_runs_ended_total{class=\"main\",kind=\"push\",outcome=\"success\"}"
                  + " 1.0"),
          metrics);
      Path root = Path.of(System.getProperty("knotless.repo.root", "../..")).toAbsolutePath();
      disagreements =
          MetricsTable.read(root)
              .disagreements(
                  "all-in-one",
                  new TreeSet<>(
                      metrics
                          .lines()
                          .filter(l -> !l.isBlank() && !l.startsWith("#"))
                          .map(l -> l.split("[{ ]", 2)[0])
                          .toList()));
    } finally {
      p.destroy();
      p.waitFor(60, TimeUnit.SECONDS);
    }
    assertEquals(List.of(), disagreements, "docs/metrics.md against the all-in-one's metrics");

    String rkey = null;
    for (Record rec :
        r.reader.listRecords(r.runner.did(), CheckRecord.COLLECTION, 100, null, false).records()) {
      if (CheckRecord.fromJson(rec.value()).commit().equals(sha)) {
        rkey = rec.rkey();
      }
    }
    assertTrue(rkey != null, "the check was filed");
    String repo = r.owner.account.did() + "/app"; // the label, as the command line names it

    ObjectMapper json = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(r.log(1))) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n = json.readTree(line);
      assertTrue(n != null && n.isObject(), "not one JSON object: " + line);
      for (String field : List.of("timestamp", "level", "loggerName", "message", "mdc")) {
        assertTrue(n.has(field), field + " missing: " + line);
      }
      lines.add(n);
    }
    List<JsonNode> ofRun = new ArrayList<>();
    for (JsonNode n : lines) {
      if (rkey.equals(n.path("mdc").path("run").asText())) {
        ofRun.add(n);
        assertEquals(
            repo, n.path("mdc").path("repo").asText(), "the run's line names its repo: " + n);
      }
    }
    assertTrue(
        ofRun.stream().anyMatch(n -> n.path("message").asText().contains("running quick at")),
        "the run's start is logged with its identifiers: " + lines);
  }
}
