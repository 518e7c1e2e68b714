package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The distributed shape end to end, each service its own process: an owner pushes to the real PDS,
 * the ingester hears the firehose and publishes a doorbell to the real broker, a reconciler's pass
 * files the check queued and queues the run with its order in real PostgreSQL, the scheduler runs
 * the steps in a pod (the mock API server's, run by the test kubelet) and publishes the run's
 * events, and the check-writer files the check as it ends, with its log.
 */
class PushToCheckIT {
  static final String CI =
      """
      on: {push: {refs: [main]}}
      steps:
        - name: hello
          run: echo "hello from $KNOTLESS_RUN_REPO"; echo second line
        - name: fails
          run: echo about to fail; exit 4
        - name: never
          run: echo never
      """;

  private static LocalDistributed shape;
  private static OwnerRepo owner;
  private static ServiceProcess reconciler;
  private static final Map<String, ServiceProcess> services = new java.util.LinkedHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("push-to-check-it");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    owner =
        shape.ownerRepo("app", Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
    services.put("check-writer", shape.startCheckWriter());
    reconciler = shape.startReconciler();
    services.put("reconciler", reconciler);
    services.put("scheduler", shape.startScheduler());
    services.put("ingester", shape.startIngester());
  }

  @AfterAll
  static void stop() {
    if (shape != null) {
      shape.close();
    }
  }

  @Test
  void aPushBecomesADoorbellAPassARunAndAFiledCheckAcrossTheServices() throws Exception {
    // The ingester rings every door as it connects: that first pass is the baseline.
    Checks.await(Duration.ofSeconds(90), "the baseline pass", () -> Checks.passes(reconciler) >= 1);
    assertEquals(List.of(), Checks.all(shape), "the baseline runs nothing");

    owner.commit(Map.of("README.md", "hello again\n"));
    long t0 = System.nanoTime();
    String sha = owner.push("main");
    Record ended =
        Checks.awaitOne(
            shape, Duration.ofSeconds(120), c -> c.status().ended() && c.commit().equals(sha));
    System.out.printf(
        "[PushToCheckIT] push to check ended, across the four services: %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);

    CheckRecord check = CheckRecord.fromJson(ended.value());
    assertEquals(CheckStatus.FAILURE, check.status(), check.toString());
    assertEquals("step fails failed", check.note());
    assertEquals("refs/heads/main", check.ref());
    assertEquals(3, check.steps().size());
    assertEquals("success", check.steps().get(0).status().wire());
    assertEquals("failure", check.steps().get(1).status().wire());
    assertEquals("skipped", check.steps().get(2).status().wire());
    String log = Checks.log(shape, check);
    assertTrue(log.contains("hello from " + owner.account.did() + "/app\nsecond line\n"), log);
    assertTrue(log.contains("==> fails\nabout to fail\n"), log);
    assertTrue(log.contains("==> never\nskipped: step \"fails\" failed\n"), log);
    assertTrue(!log.contains("\nnever\n"), "the skipped step did not run: " + log);
    assertEquals(1, Checks.all(shape).size(), "one check for the one push");
    assertTrue(log.startsWith("pod knotless-"), "the run went to a pod: " + log);
    assertEquals(1, shape.podsMade(), "one pod for the one run");
    // Once a push has gone all the way through, every name the dashboard and alerts read is there.
    assertEquals(
        List.of(), ExportedMetrics.missing(LocalDistributed.projectRoot(), services), "metrics");
  }

  @Test
  void eachServiceLogsJsonLinesForTheLogPipeline() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    for (String name : List.of("ingester", "reconciler-1", "scheduler-1", "check-writer")) {
      List<String> lines = Files.readAllLines(shape.dir().resolve("logs/" + name + ".log"));
      assertTrue(lines.size() > 3, name + " logged: " + lines);
      for (String line : lines) {
        com.fasterxml.jackson.databind.JsonNode n = json.readTree(line);
        assertTrue(n.hasNonNull("level") && n.hasNonNull("message"), name + ": " + line);
      }
    }
  }
}
