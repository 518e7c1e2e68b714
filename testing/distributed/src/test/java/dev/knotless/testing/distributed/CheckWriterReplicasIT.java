package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two check-writers share the run events, keeping running checks in PostgreSQL. While a step prints
 * a line every tenth of a second in its run pod, the replica writing its check is stopped (as a
 * rolling update stops a pod) or killed: the other takes the partition over, and the check's log
 * blob holds every line once, in order. Both reach the PDS through a {@link CountingProxy}, which
 * shows the record written once per status, the log uploaded once, and a push costing the PDS six
 * requests to running.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CheckWriterReplicasIT {
  private static final int LINES = 80;
  private static final String CI =
      """
      on: {push: {refs: [main]}}
      steps:
        - name: count
          run: for i in $(seq 1 %d); do echo "line $i of the run"; sleep 0.1; done
      """
          .formatted(LINES);
  private static final String PUT_RECORD = "com.atproto.repo.putRecord";
  private static final String UPLOAD_BLOB = "com.atproto.repo.uploadBlob";

  private static LocalDistributed shape;
  private static OwnerRepo owner;
  private static CountingProxy proxy;
  private static final List<ServiceProcess> writers = new ArrayList<>();
  private static ServiceProcess reconciler;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("check-writer-replicas-it");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    owner = shape.ownerRepo("app", Map.of(".knotless/workflows/ci.yml", CI));
    proxy = CountingProxy.start(shape.pds().pdsUrl());
    writers.add(shape.startCheckWriter(proxy.url()));
    writers.add(shape.startCheckWriter(proxy.url()));
    reconciler = shape.startReconciler();
    shape.startScheduler();
    shape.startIngester();
    Checks.await(Duration.ofSeconds(90), "the baseline pass", () -> Checks.passes(reconciler) >= 1);
  }

  @AfterAll
  static void stop() throws Exception {
    if (shape != null) {
      shape.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  @org.junit.jupiter.api.Order(1)
  void aPushCostsThePdsSixRequestsToRunningOneOfThemTheCheckWriters() throws Exception {
    // One push first, as the bench does: the check-writers log in at their first filing.
    awaitEnded(pushAndAwaitRunning("warm"));
    proxy.reset();
    Map<String, Integer> passBefore = pdsRequests(reconciler);
    long t0 = System.nanoTime();
    String sha = pushAndAwaitRunning("counted");
    long toRunning = (System.nanoTime() - t0) / 1_000_000;
    Map<String, Integer> writes = checkWrites();
    Map<String, Integer> fromPass = minus(pdsRequests(reconciler), passBefore);
    int total =
        writes.values().stream().mapToInt(Integer::intValue).sum()
            + fromPass.values().stream().mapToInt(Integer::intValue).sum();
    System.out.printf(
        "[CheckWriterReplicasIT] push to running in %d ms, %d PDS requests: the pass %s, the"
            + " check-writers %s%n",
        toRunning, total, fromPass, writes);
    assertEquals(Map.of(PUT_RECORD, 1), writes, "the check-writers filed it running, not queued");
    assertEquals(1, fromPass.getOrDefault(PUT_RECORD, 0), "the pass filed it queued: " + fromPass);
    assertEquals(6, total, "PDS requests from the push to running: " + fromPass + " " + writes);
    awaitEnded(sha);
  }

  @Test
  @org.junit.jupiter.api.Order(2)
  void theReplicaWritingACheckStoppedMidRunLeavesTheOtherToFileItWholeAndOnce() throws Exception {
    String sha = pushAndAwaitRunning("stopped");
    proxy.reset();
    ServiceProcess holder = holderOfTheRun();
    ServiceProcess other = writers.get(writers.get(0) == holder ? 1 : 0);
    double otherBefore = outputs(other);
    long stopped = System.nanoTime();
    holder.stop();
    System.out.printf(
        "[CheckWriterReplicasIT] %s stopped in %d ms while the step printed%n",
        holder, (System.nanoTime() - stopped) / 1_000_000);
    CheckRecord check = awaitEnded(sha);
    assertTrue(outputs(other) > otherBefore, "the other replica took the rest of the output");
    assertWholeLog(check);
    assertEquals(
        Map.of(PUT_RECORD, 1, UPLOAD_BLOB, 1),
        checkWrites(),
        "after the stop, the check filed ended once, with one log blob");
    holder.restart();
  }

  @Test
  @org.junit.jupiter.api.Order(3)
  void theReplicaWritingACheckKilledMidRunLeavesTheOtherToFileItWhole() throws Exception {
    String sha = pushAndAwaitRunning("killed");
    ServiceProcess holder = holderOfTheRun();
    holder.kill();
    CheckRecord check = awaitEnded(sha);
    assertWholeLog(check);
    holder.restart();
  }

  /** The check-writer whose count of output events grows while the step prints. */
  private static ServiceProcess holderOfTheRun() throws Exception {
    ServiceProcess[] holder = new ServiceProcess[1];
    double[] before = {outputs(writers.get(0)), outputs(writers.get(1))};
    Checks.await(
        Duration.ofSeconds(30),
        "a check-writer taking the run's output",
        () -> {
          for (int i = 0; i < 2; i++) {
            if (outputs(writers.get(i)) > before[i]) {
              holder[0] = writers.get(i);
              return true;
            }
          }
          return false;
        });
    return holder[0];
  }

  private static double outputs(ServiceProcess writer) throws java.io.IOException {
    return writer.metric("knotless_run_check_writer_events_total{type=\"Output\"");
  }

  /** A service's PDS requests so far, by method. */
  private static Map<String, Integer> pdsRequests(ServiceProcess service)
      throws java.io.IOException {
    Map<String, Integer> out = new TreeMap<>();
    for (String line : service.metrics().split("\n")) {
      if (line.startsWith("knotless_run_pds_requests_total{")) {
        int from = line.indexOf("method=\"") + 8;
        String method = line.substring(from, line.indexOf('"', from));
        double n = ServiceProcess.sampleValue(line);
        out.merge(method, (int) Math.round(n), Integer::sum);
      }
    }
    return out;
  }

  private static Map<String, Integer> minus(Map<String, Integer> now, Map<String, Integer> was) {
    Map<String, Integer> out = new TreeMap<>();
    now.forEach(
        (k, v) -> {
          int d = v - was.getOrDefault(k, 0);
          if (d != 0) {
            out.put(k, d);
          }
        });
    return out;
  }

  /** What the check-writers asked of the PDS since the reset, their logins left out. */
  private static Map<String, Integer> checkWrites() {
    Map<String, Integer> out = new TreeMap<>(proxy.byMethod());
    out.keySet().removeIf(m -> m.startsWith("com.atproto.server."));
    return out;
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
