package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A newer commit queued by one reconciler cancels the older commit's run pod that another
 * reconciler queued. The repository moves between them when the one that queued its push stops
 * (SIGTERM, as a rollout sends): the stop leaves the run's pod alone, and the next push, filed by
 * the other replica, supersedes it, so the scheduler cuts it short and runs the newer one.
 */
class SupersedeAcrossReplicasIT {
  private static final int LINES = 120; // a minute of steps: longer than a stop is given here
  private static final int SECOND_LINES = 4;

  private static LocalDistributed shape;
  private static OwnerRepo owner;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("supersede-across-it");
    String ci =
        """
        on: {push: {refs: [main]}}
        steps:
          - name: count
            run: for i in $(seq 1 $(cat lines)); do echo "line $i of the run"; sleep 0.5; done
        """;
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    owner = shape.ownerRepo("site", Map.of(".knotless/workflows/ci.yml", ci));
    shape.startCheckWriter();
    shape.startReconciler();
    shape.startReconciler();
    shape.startScheduler();
    shape.startIngester();
  }

  @AfterAll
  static void stop() {
    if (shape != null) {
      shape.close();
    }
  }

  @Test
  void aPushFiledOnTheOtherReplicaCancelsThePodOfTheRunTheStoppedReplicaQueued() throws Exception {
    List<ServiceProcess> reconcilers = shape.services("reconciler");
    Checks.await(
        Duration.ofSeconds(120),
        "the baseline pass",
        () -> Checks.passes(reconcilers.get(0)) + Checks.passes(reconcilers.get(1)) >= 1);
    owner.commit(Map.of("lines", LINES + "\n"));
    String first = owner.push("main");
    // Its pod running, so its steps are under way when the newer push supersedes it.
    Checks.await(Duration.ofSeconds(90), "the run's pod running", () -> shape.podsRunning() == 1);
    String queued = "ci at " + first + " queued for the scheduler";
    ServiceProcess running =
        Files.readString(reconcilers.get(0).log()).contains(queued)
            ? reconcilers.get(0)
            : reconcilers.get(1);
    ServiceProcess other = running == reconcilers.get(0) ? reconcilers.get(1) : reconcilers.get(0);

    long t0 = System.nanoTime();
    CompletableFuture<Void> stopping = CompletableFuture.runAsync(running::stop);
    Checks.await(
        Duration.ofSeconds(30),
        "the stopping replica out of the doorbell group",
        () -> Files.readString(running.log()).contains("left the doorbell group"));
    owner.commit(Map.of("lines", SECOND_LINES + "\n")); // the newer commit's run is short
    String second = owner.push("main");
    stopping.get();
    long stoppedMs = (System.nanoTime() - t0) / 1_000_000;

    CheckRecord superseded = CountingRuns.awaitEnded(shape, first, "ci");
    assertEquals(CheckStatus.CANCELLED, superseded.status(), superseded.toString());
    assertTrue(String.valueOf(superseded.note()).contains("superseded"), superseded.toString());
    String log = Checks.log(shape, superseded);
    long printed = log.lines().filter(l -> l.endsWith(" of the run")).count();
    assertTrue(printed < LINES, "the first run was cut short, not run out: " + printed + " lines");
    assertTrue(stoppedMs < 30_000, "the stop waited for nothing (" + stoppedMs + " ms)");

    CheckRecord ran = CountingRuns.awaitEnded(shape, second, "ci");
    assertEquals(CheckStatus.SUCCESS, ran.status(), ran.toString());
    assertEquals(
        SECOND_LINES,
        Checks.log(shape, ran).lines().filter(l -> l.endsWith(" of the run")).count(),
        "the newer commit's run printed every line");
    assertTrue(
        Files.readString(other.log()).contains("ci at " + second + " queued for the scheduler"),
        "the other replica queued the newer run");
    assertEquals(2, shape.podsMade(), "one pod each");
    System.out.printf(
        "[SupersedeAcrossReplicasIT] the stop took %d ms; the superseded run printed %d of %d"
            + " lines%n",
        stoppedMs, printed, LINES);
  }
}
