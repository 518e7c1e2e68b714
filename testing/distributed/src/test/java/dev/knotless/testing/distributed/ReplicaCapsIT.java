package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.StepResult;
import dev.knotless.testing.Account;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two reconcilers queue the runs of one owner, whom the scheduler holds to one job (owner-jobs 1)
 * and a one-minute allowance: the owner's run pods never overlap though both replicas queue some,
 * and the owner's minutes record adds up every run's time, whichever replica queued it.
 */
class ReplicaCapsIT {
  private static final int REPOS = 6;

  /** The doorbell topic's partitions: the test broker's default. */
  private static final int DOORBELL_PARTITIONS = 4;

  private static final int STEP_SECONDS = 11;

  private static LocalDistributed shape;
  private static Account owner;
  private static final List<OwnerRepo> repos = new ArrayList<>();
  private static ServiceProcess first;
  private static ServiceProcess second;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("replica-caps-it");
    // Each check says when its one step began and ended.
    String ci =
        """
        on: {push: {refs: [main]}}
        steps:
          - name: work
            run: sleep %d
        """
            .formatted(STEP_SECONDS);
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    owner = shape.pds().createAccount("owner");
    // Two replicas share the doorbell topic's partitions, two each. Repositories whose keys fall on
    // three partitions or more are sure to be passed by both, so the cap is held across the two.
    java.util.Set<Integer> partitions = new java.util.HashSet<>();
    for (int i = 0; i < REPOS || partitions.size() < 3; i++) {
      OwnerRepo o = shape.ownerRepo(owner, "app-" + i, Map.of(".knotless/workflows/ci.yml", ci));
      repos.add(o);
      partitions.add(DoorbellPartitions.of(owner.did() + "/" + o.key(), DOORBELL_PARTITIONS));
    }
    shape.startCheckWriter();
    first = shape.startReconciler();
    second = shape.startReconciler();
    shape.startScheduler(
        Map.of(
            "knotless.scheduler.jobs", "4",
            "knotless.scheduler.owner-jobs", "1",
            "knotless.scheduler.allowance", "1",
            "knotless.scheduler.usage-refresh", "1s"));
    shape.startIngester();
  }

  @AfterAll
  static void stop() {
    if (shape != null) {
      shape.close();
    }
  }

  @Test
  void anOwnersCapHoldsAcrossReplicasAndTheMinutesRecordCountsBoth() throws Exception {
    Checks.await(
        Duration.ofSeconds(120),
        "the baseline passes",
        () -> Checks.passes(first) + Checks.passes(second) >= repos.size());
    List<long[]> ran = new ArrayList<>();
    for (String sha : PushedAtOnce.pushAndAwaitSuccess(shape, repos)) {
      StepResult step = CountingRuns.awaitEnded(shape, sha).steps().get(0);
      ran.add(new long[] {step.startedAt().toEpochMilli(), step.endedAt().toEpochMilli()});
    }
    assertEquals(repos.size(), shape.podsMade(), "each push ran once, in a pod of its own");
    ran.sort((a, b) -> Long.compare(a[0], b[0]));
    for (int i = 1; i < ran.size(); i++) {
      assertTrue(
          ran.get(i)[0] >= ran.get(i - 1)[1],
          "the owner's runs never overlap: one began before the one before it ended, at " + i);
    }

    long total = ran.stream().mapToLong(r -> r[1] - r[0]).sum();
    XrpcClient pds = XrpcClient.create(shape.pds().pdsUrl());
    Checks.await(
        Duration.ofSeconds(30),
        "the minutes record counting every run",
        () ->
            pds.findRecord(shape.runner().did(), "dev.knotless.minutes", owner.did())
                .map(r -> r.value().path("minutes").asLong() == total / 60_000)
                .orElse(false));
    JsonNode minutes =
        pds.getRecord(shape.runner().did(), "dev.knotless.minutes", owner.did()).value();
    assertEquals(1, minutes.path("allowance").asLong(), minutes.toString());
    System.out.printf(
        "[ReplicaCapsIT] %d runs of one owner, %d ms of steps in all, none overlapping; record %s%n",
        repos.size(), total, minutes);
    // With the doorbells on three partitions, each replica passes some of the repositories once
    // both have joined the group. Should one still hold every partition (a rebalance late), every
    // run was queued by one replica alone, and the run says so as skipped, not passed.
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.readString(first.log()).contains(": ci at ")
            && Files.readString(second.log()).contains(": ci at "),
        "one replica queued every run: the cap was not tested across two");
  }
}
