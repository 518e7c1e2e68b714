package dev.knotless.testing.distributed;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Parts of the distributed shape fail while a run prints in its pod: the check-writer is killed and
 * started again, the Kafka broker restarts, PostgreSQL restarts. Each time the run's check still
 * ends success, and its log blob holds every line the step printed, once and in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailuresIT {
  private static final int LINES = 60;
  static final String CI =
      """
      on: {push: {refs: [main]}}
      steps:
        - name: count
          run: for i in $(seq 1 %d); do echo "line $i of the run"; sleep 0.1; done
      """
          .formatted(LINES);

  private static LocalDistributed shape;
  private static OwnerRepo owner;
  private static ServiceProcess checkWriter;
  private static ServiceProcess reconciler;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("failures-it");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    owner = shape.ownerRepo("app", Map.of(".knotless/workflows/ci.yml", CI));
    checkWriter = shape.startCheckWriter();
    reconciler = shape.startReconciler();
    shape.startScheduler();
    shape.startIngester();
    Checks.await(Duration.ofSeconds(90), "the baseline pass", () -> Checks.passes(reconciler) >= 1);
  }

  @AfterAll
  static void stop() {
    if (shape != null) {
      shape.close();
    }
  }

  @Test
  @org.junit.jupiter.api.Order(1)
  void theCheckWriterKilledMidRunLosesNoLineAndRepeatsNone() throws Exception {
    String sha = pushAndAwaitRunning("check-writer");
    checkWriter.kill();
    Thread.sleep(1_000);
    checkWriter.restart();
    assertWholeLog(awaitEnded(sha));
  }

  @Test
  @org.junit.jupiter.api.Order(2)
  void aBrokerRestartMidRunStillEndsTheCheck() throws Exception {
    String sha = pushAndAwaitRunning("broker");
    shape.broker().restart();
    assertWholeLog(awaitEnded(sha));
  }

  @Test
  @org.junit.jupiter.api.Order(3)
  void aPostgresRestartMidRunStillEndsTheCheck() throws Exception {
    String sha = pushAndAwaitRunning("postgres");
    shape.postgres().restart();
    assertWholeLog(awaitEnded(sha));
  }

  private static String pushAndAwaitRunning(String what) throws Exception {
    return CountingRuns.pushAndAwaitRunning(shape, owner, what);
  }

  private static CheckRecord awaitEnded(String sha) throws Exception {
    return CountingRuns.awaitEnded(shape, sha);
  }

  private static void assertWholeLog(CheckRecord check) throws Exception {
    CountingRuns.assertWholeLog(shape, check, LINES);
  }
}
