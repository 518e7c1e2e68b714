package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.XrpcClient;
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
 * Two reconcilers run the runs of one owner held to one job (owner-jobs 1) and a one-minute
 * allowance: the owner's runs never overlap though both replicas run some, and the owner's minutes
 * record, which neither replica's share reaches a minute of, adds up to the whole runner's time.
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
  private static Path spans;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("replica-caps-it");
    spans = dir.resolve("spans.txt");
    Files.createFile(spans);
    // Each run writes when its step began and ended, in milliseconds, to a file both share.
    String ci =
        """
        on: {push: {refs: [main]}}
        steps:
          - name: work
            run: |
              from=$(date +%%s%%3N); sleep %d; echo "$from $(date +%%s%%3N) $KNOTLESS_RUN_SHA" >> %s
        """
            .formatted(STEP_SECONDS, spans);
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir).withShellExecutor();
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
    Map<String, String> capped =
        Map.of(
            "knotless.reconciler.worker.jobs", "4",
            "knotless.reconciler.worker.owner-jobs", "1",
            "knotless.reconciler.worker.allowance", "1",
            "knotless.reconciler.worker.usage-refresh", "1s");
    first = shape.startReconciler(capped);
    second = shape.startReconciler(capped);
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
    PushedAtOnce.pushAndAwaitSuccess(shape, repos);

    List<long[]> ran = new ArrayList<>();
    for (String line : Files.readAllLines(spans)) {
      String[] f = line.split(" ");
      ran.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])});
    }
    assertEquals(repos.size(), ran.size(), "each push ran once");
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
    // both have joined the group. Should one still hold every partition (a rebalance late), the cap
    // was held by one replica alone, and the run says so as skipped, not passed.
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.readString(first.log()).contains(": running ci at ")
            && Files.readString(second.log()).contains(": running ci at "),
        "one replica ran every run: the cap was not tested across two");
  }
}
