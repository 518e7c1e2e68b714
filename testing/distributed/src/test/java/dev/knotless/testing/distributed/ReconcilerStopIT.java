package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A reconciler stopped with SIGTERM (a rollout) while it runs a deploy keeps the deploy going to
 * its end, keeps the run waiting at the deploy's commit while the deploy runs, and then hands that
 * run back: the other replica runs it. Each run's step appends a line to a file both replicas'
 * steps share, so each is seen to run exactly once. Then a run asked for by name, which a stop
 * cancels rather than waits for, is cut off mid-step and run again whole by the other replica, with
 * its variables, under its one check.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReconcilerStopIT {
  private static final int LINES = 16;
  private static final Map<String, String> ONE_JOB =
      Map.of("knotless.reconciler.worker.jobs", "1", "knotless.reconciler.worker.stop-wait", "90s");

  private static LocalDistributed shape;
  private static OwnerRepo owner;
  private static ServiceProcess first;
  private static ServiceProcess second;
  private static Path runs;
  private static Path asked;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("reconciler-stop-it");
    runs = dir.resolve("runs.txt");
    Files.createFile(runs);
    asked = dir.resolve("asked.txt");
    Files.createFile(asked);
    String byName =
        """
        on: {asked: {refs: [main]}}
        steps:
          - name: count
            run: |
              echo "asked $GREETING start" >> %s
              for i in $(seq 1 %d); do echo "line $i of the asked run"; sleep 0.5; done
              echo "asked $GREETING end" >> %s
        """
            .formatted(asked, LINES, asked);
    String deploy =
        """
        on: {push: {refs: [main]}}
        superseded: finish
        steps:
          - name: count
            run: |
              for i in $(seq 1 %d); do echo "line $i of the deploy"; sleep 0.5; done
              echo "deploy $KNOTLESS_RUN_SHA" >> %s
        """
            .formatted(LINES, runs);
    String ci =
        """
        on: {push: {refs: [main]}}
        steps:
          - name: check
            run: echo "ci $KNOTLESS_RUN_SHA" >> %s
        """
            .formatted(runs);
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir).withShellExecutor();
    owner =
        shape.ownerRepo(
            "site",
            Map.of(
                ".knotless/workflows/a-deploy.yml",
                deploy,
                ".knotless/workflows/b-ci.yml",
                ci,
                ".knotless/workflows/c-asked.yml",
                byName));
    shape.startCheckWriter();
    // One job each: the ci run waits behind the deploy on the replica that has the repository.
    first = shape.startReconciler(ONE_JOB);
    second = shape.startReconciler(ONE_JOB);
    shape.startIngester();
  }

  @AfterAll
  static void stop() {
    if (shape != null) {
      shape.close();
    }
  }

  @Test
  @Order(1)
  void aStoppedReconcilerFinishesItsDeployAndHandsTheWaitingRunToTheOtherReplica()
      throws Exception {
    Checks.await(
        Duration.ofSeconds(120),
        "the baseline pass",
        () -> Checks.passes(first) + Checks.passes(second) >= 1);
    owner.commit(Map.of("what", "deploy me"));
    String sha = owner.push("main");
    Checks.await(
        Duration.ofSeconds(90),
        "the deploy running",
        () ->
            Files.readString(first.log()).contains(": running a-deploy at ")
                || Files.readString(second.log()).contains(": running a-deploy at "));
    ServiceProcess running =
        Files.readString(first.log()).contains(": running a-deploy at ") ? first : second;
    ServiceProcess other = running == first ? second : first;
    CheckRecord ci = check(sha, "b-ci");
    assertEquals(CheckStatus.QUEUED, ci.status(), "the ci run waits for the one job: " + ci);

    long t0 = System.nanoTime();
    running.stop(); // SIGTERM, as a rollout sends; returns once the process has exited
    long stoppedMs = (System.nanoTime() - t0) / 1_000_000;

    CheckRecord deployed = CountingRuns.awaitEnded(shape, sha, "a-deploy");
    assertEquals(CheckStatus.SUCCESS, deployed.status(), "the deploy ran to its end: " + deployed);
    List<String> want = new ArrayList<>(List.of("==> count"));
    for (int i = 1; i <= LINES; i++) {
      want.add("line " + i + " of the deploy");
    }
    assertEquals(want, List.of(Checks.log(shape, deployed).split("\n")), "the deploy's log whole");

    CheckRecord checked = CountingRuns.awaitEnded(shape, sha, "b-ci");
    assertEquals(CheckStatus.SUCCESS, checked.status(), "the handed-back run ran: " + checked);
    // Both replicas started moments ago: a fresh one takes a run handed back to it within its
    // stale-after (6 s here) and a heartbeat, not once minutes of uptime have passed.
    Duration takenAfter = Duration.between(deployed.endedAt(), checked.startedAt());
    assertTrue(
        takenAfter.compareTo(Duration.ofSeconds(45)) < 0,
        "the handed-back run started " + takenAfter + " after the deploy it waited for ended");
    List<String> ran = Files.readAllLines(runs);
    assertEquals(List.of("deploy " + sha, "ci " + sha), ran, "each ran once, the deploy first");
    String stoppedLog = Files.readString(running.log());
    assertTrue(stoppedLog.contains("left the doorbell group"), "it left the group at once");
    assertTrue(stoppedLog.contains("handed back"), "it handed the ci run back");
    assertFalse(stoppedLog.contains(": running b-ci at "), "the stopped replica never ran ci");
    assertTrue(
        Files.readString(other.log()).contains(": running b-ci at "), "the other replica ran ci");
    System.out.printf(
        "[ReconcilerStopIT] the stop took %d ms (the deploy's rest); the other replica started the"
            + " handed-back run %d ms after the deploy ended%n",
        stoppedMs, takenAfter.toMillis());
  }

  @Test
  @Order(2)
  void aRunAskedForByNameThatAStopCutsOffIsRunAgainWholeByTheOtherReplica() throws Exception {
    shape.startReconciler(ONE_JOB); // in place of the one stopped above
    List<ServiceProcess> live =
        shape.services("reconciler").stream().filter(ServiceProcess::alive).toList();
    assertEquals(2, live.size(), "two reconcilers run: " + live);
    String sha = owner.head();
    OwnerCli.run(
        shape,
        owner.account,
        Map.of(),
        "",
        "rerun",
        owner.label(),
        "--ref",
        "main",
        "--workflow",
        "c-asked",
        "--var",
        "GREETING=hi");
    Checks.await(
        Duration.ofSeconds(90),
        "the asked run's step under way",
        () -> Files.readString(asked).contains("asked hi start"));
    ServiceProcess cut =
        live.stream()
            .filter(s -> s.childrenRunning("of the asked run") > 0)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no reconciler runs the asked run's step"));
    ServiceProcess other = live.get(0) == cut ? live.get(1) : live.get(0);
    long t0 = System.nanoTime();
    cut.stop(); // SIGTERM: the asked run is cancelled at once, not waited for
    long stoppedMs = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(stoppedMs < 60_000, "the stop waited " + stoppedMs + " ms for the asked run");

    CheckRecord ran = CountingRuns.awaitEnded(shape, sha, "c-asked");
    assertEquals(CheckStatus.SUCCESS, ran.status(), "run again to its end: " + ran);
    String log = Checks.log(shape, ran);
    List<String> lines = new ArrayList<>();
    for (String line : log.split("\n")) {
      if (line.endsWith(" of the asked run")) {
        lines.add(line);
      }
    }
    List<String> want = new ArrayList<>();
    for (int i = 1; i <= LINES; i++) {
      want.add("line " + i + " of the asked run");
    }
    assertEquals(want, lines, "the second run's log, whole and once: " + log);
    assertEquals(
        List.of("asked hi start", "asked hi start", "asked hi end"),
        Files.readAllLines(asked),
        "cut off once, then run whole with its variables");
    assertTrue(
        Files.readString(cut.log()).contains("handed back, to be filed and run again"),
        "the stopped replica handed the asked run back");
    assertTrue(
        Files.readString(other.log()).contains(": running c-asked at "),
        "the other replica ran it again");
    assertEquals(
        1,
        Checks.all(shape).stream()
            .map(r -> CheckRecord.fromJson(r.value()))
            .filter(c -> c.commit().equals(sha) && c.workflow().equals("c-asked"))
            .count(),
        "one check for the asked run");
    System.out.printf(
        "[ReconcilerStopIT] the stop with an asked run going took %d ms%n", stoppedMs);
  }

  private static CheckRecord check(String sha, String workflow) throws Exception {
    return CheckRecord.fromJson(
        Checks.awaitOne(
                shape,
                Duration.ofSeconds(60),
                c -> c.commit().equals(sha) && c.workflow().equals(workflow))
            .value());
  }
}
