package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * A reconciler stopped with SIGTERM (a rollout) while the runs it queued are going does not disturb
 * them: it stops at once, holding no run, and leaves its doorbells to the other replica; the
 * scheduler's pods run on. A deploy runs to its end while the run queued behind it waits for the
 * scheduler's one job and then runs, each in one pod; a run asked for by name runs once, whole and
 * with its variables, under its one check.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReconcilerStopIT {
  private static final int LINES = 16;

  private static LocalDistributed shape;
  private static OwnerRepo owner;
  private static ServiceProcess first;
  private static ServiceProcess second;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("reconciler-stop-it");
    String byName =
        """
        on: {asked: {refs: [main]}}
        steps:
          - name: count
            run: |
              echo "asked $GREETING start"
              for i in $(seq 1 %d); do echo "line $i of the asked run"; sleep 0.5; done
              echo "asked $GREETING end"
        """
            .formatted(LINES);
    String deploy =
        """
        on: {push: {refs: [main]}}
        superseded: finish
        steps:
          - name: count
            run: for i in $(seq 1 %d); do echo "line $i of the deploy"; sleep 0.5; done
        """
            .formatted(LINES);
    String ci =
        """
        on: {push: {refs: [main]}}
        steps:
          - name: check
            run: echo "ci $KNOTLESS_RUN_SHA"
        """;
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
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
    first = shape.startReconciler();
    second = shape.startReconciler();
    // One job: the ci run waits behind the deploy.
    shape.startScheduler(Map.of("knotless.scheduler.jobs", "1"));
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
  void aReconcilerStoppedWhileItsDeployRunsLeavesTheDeployAndTheRunWaitingBehindItToTheScheduler()
      throws Exception {
    Checks.await(
        Duration.ofSeconds(120),
        "the baseline pass",
        () -> Checks.passes(first) + Checks.passes(second) >= 1);
    owner.commit(Map.of("what", "deploy me"));
    String sha = owner.push("main");
    awaitPodRunning("the deploy");
    ServiceProcess queuer = queuedBy("a-deploy at " + sha, first, second);
    CheckRecord ci = check(sha, "b-ci");
    assertEquals(CheckStatus.QUEUED, ci.status(), "the ci run waits for the one job: " + ci);

    long t0 = System.nanoTime();
    queuer.stop(); // SIGTERM, as a rollout sends; returns once the process has exited
    long stoppedMs = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(stoppedMs < 30_000, "the stop waited " + stoppedMs + " ms, for nothing it holds");

    CheckRecord deployed = CountingRuns.awaitEnded(shape, sha, "a-deploy");
    assertEquals(CheckStatus.SUCCESS, deployed.status(), "the deploy ran to its end: " + deployed);
    List<String> want = new ArrayList<>();
    for (int i = 1; i <= LINES; i++) {
      want.add("line " + i + " of the deploy");
    }
    assertEquals(want, steps(Checks.log(shape, deployed)), "the deploy's log, whole and once");
    CheckRecord checked = CountingRuns.awaitEnded(shape, sha, "b-ci");
    assertEquals(CheckStatus.SUCCESS, checked.status(), "the waiting run ran: " + checked);
    assertTrue(
        !checked.startedAt().isBefore(deployed.steps().get(0).endedAt()),
        "the ci run waited for the deploy's job: " + deployed + " " + checked);
    assertEquals(2, shape.podsMade(), "each ran once, in a pod of its own");
    assertTrue(
        Files.readString(queuer.log()).contains("left the doorbell group"),
        "it left the group at once");
    System.out.printf(
        "[ReconcilerStopIT] the stop took %d ms with its deploy running%n", stoppedMs);
  }

  @Test
  @Order(2)
  void aRunAskedForByNameRunsOnceWholeThoughTheReconcilerThatQueuedItStops() throws Exception {
    shape.startReconciler(); // in place of the one stopped above
    List<ServiceProcess> live =
        shape.services("reconciler").stream().filter(ServiceProcess::alive).toList();
    assertEquals(2, live.size(), "two reconcilers run: " + live);
    long pods = shape.podsMade();
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
    awaitPodRunning("the asked run");
    ServiceProcess queuer = queuedBy("c-asked at " + sha, live.get(0), live.get(1));
    long t0 = System.nanoTime();
    queuer.stop();
    long stoppedMs = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(stoppedMs < 30_000, "the stop waited " + stoppedMs + " ms for the asked run");

    CheckRecord ran = CountingRuns.awaitEnded(shape, sha, "c-asked");
    assertEquals(CheckStatus.SUCCESS, ran.status(), "run to its end: " + ran);
    String log = Checks.log(shape, ran);
    List<String> want = new ArrayList<>(List.of("asked hi start"));
    for (int i = 1; i <= LINES; i++) {
      want.add("line " + i + " of the asked run");
    }
    want.add("asked hi end");
    assertEquals(want, steps(log), "whole, once, with its variables: " + log);
    assertEquals(pods + 1, shape.podsMade(), "one pod for the asked run");
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

  /**
   * Waits for the one job's pod to run. Not for the check filed running: the scheduler's {@code
   * started} can reach the check-writer before the reconciler's {@code filed} and be refused, so a
   * check may go from queued to its end.
   */
  private static void awaitPodRunning(String what) throws Exception {
    Checks.await(Duration.ofSeconds(90), what + "'s pod running", () -> shape.podsRunning() == 1);
  }

  /** The lines its steps printed, without the pod's line and the steps' headers. */
  private static List<String> steps(String log) {
    return log.lines().filter(l -> !l.startsWith("pod ") && !l.startsWith("==> ")).toList();
  }

  /** The one of {@code replicas} whose log says it queued {@code what}. */
  private static ServiceProcess queuedBy(String what, ServiceProcess... replicas) throws Exception {
    for (ServiceProcess s : replicas) {
      if (Files.readString(s.log()).contains(what + " queued for the scheduler")) {
        return s;
      }
    }
    throw new AssertionError("no reconciler says it queued " + what);
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
