package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two reconciler replicas share 50 repositories, each pushed at once. One replica is killed (its
 * JVM, as a pod dies) while passes are going and runs are queued. Every push still runs exactly
 * once: one run pod each, and each commit's check ends success.
 */
class ReplicasIT {
  private static final int REPOS = 50;

  private static LocalDistributed shape;
  private static final List<OwnerRepo> owners = new ArrayList<>();
  private static ServiceProcess first;
  private static ServiceProcess second;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("replicas-it");
    String ci =
        """
        on: {push: {refs: [main]}}
        steps:
          - name: work
            run: sleep 3; echo "ran $KNOTLESS_RUN_SHA"
        """;
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<OwnerRepo>> made = new ArrayList<>();
    for (int i = 0; i < REPOS; i++) {
      String name = "app-" + i;
      made.add(
          pool.submit(
              () -> shape.ownerRepo(name, Map.of(".knotless/workflows/ci.yml", ci, "n", name))));
    }
    for (Future<OwnerRepo> f : made) {
      owners.add(f.get());
    }
    pool.shutdown();
    shape.startCheckWriter();
    first = shape.startReconciler();
    second = shape.startReconciler();
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
  void fiftyPushesAtOnceEachRunOnceThoughAReplicaIsKilledMidPass() throws Exception {
    Checks.await(
        Duration.ofSeconds(120),
        "the baseline passes of every repository",
        () -> Checks.passes(first) + Checks.passes(second) >= REPOS);
    assertEquals(List.of(), Checks.all(shape), "the baseline runs nothing");

    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(REPOS);
    List<Future<String>> pushed = new ArrayList<>();
    for (OwnerRepo o : owners) {
      pushed.add(
          pool.submit(
              () -> {
                o.commit(Map.of("n", "pushed\n"));
                return o.push("main");
              }));
    }
    // Kill the first replica as soon as it queues anything: its passes are under way.
    Checks.await(
        Duration.ofSeconds(90),
        "the first replica queueing a run",
        () -> Files.readString(first.log()).contains("queued for the scheduler"));
    first.kill();
    long killedAt = System.nanoTime();
    Map<String, OwnerRepo> byCommit = new HashMap<>();
    for (int i = 0; i < REPOS; i++) {
      byCommit.put(pushed.get(i).get(), owners.get(i));
    }
    pool.shutdown();

    Checks.await(
        Duration.ofSeconds(240),
        "every pushed commit's check ended",
        () -> endedChecks(byCommit).size() == REPOS);
    System.out.printf(
        "[ReplicasIT] %d pushes ran with a replica killed %d ms in; all ended after %d ms%n",
        REPOS, (killedAt - t0) / 1_000_000, (System.nanoTime() - t0) / 1_000_000);

    Map<String, CheckRecord> ended = endedChecks(byCommit);
    for (CheckRecord c : ended.values()) {
      assertEquals(CheckStatus.SUCCESS, c.status(), c.toString());
    }
    for (Map.Entry<String, CheckRecord> e : ended.entrySet()) {
      String log = Checks.log(shape, e.getValue());
      assertEquals(1, log.split("ran " + e.getKey(), -1).length - 1, log);
    }
    assertEquals(REPOS, shape.podsMade(), "one pod for each push, none for anything else");
  }

  /** The ended checks of the pushed commits, by commit; fails on two checks of one commit. */
  private static Map<String, CheckRecord> endedChecks(Map<String, OwnerRepo> byCommit)
      throws Exception {
    Map<String, CheckRecord> out = new HashMap<>();
    for (Record r : Checks.all(shape)) {
      CheckRecord c = CheckRecord.fromJson(r.value());
      if (byCommit.containsKey(c.commit()) && c.status().ended()) {
        if (out.put(c.commit(), c) != null) {
          throw new AssertionError("two checks of " + c.commit());
        }
      }
    }
    return out;
  }
}
