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
 * A rolling restart of every service, one replica at a time (SIGTERM, then started again), while
 * pushes to several repositories run steps that print for seconds and one of them deploys. Every
 * push's checks end (a run a later push superseded ends cancelled), none is left running, each
 * deploy runs once and in order, and every passing run's log is whole.
 *
 * <p>Smaller than an operator's week (ROUNDS times REPOS pushes), to fit the shared 2-core machine.
 */
class RollingRestartIT {
  private static final int REPOS = 5;
  private static final int ROUNDS = 2;
  private static final int LINES = 10;

  private static LocalDistributed shape;
  private static final List<OwnerRepo> owners = new ArrayList<>();
  private static Path deploys;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("rolling-restart-it");
    deploys = dir.resolve("deploys.txt");
    Files.createFile(deploys);
    String ci =
        """
        on: {push: {refs: [main]}}
        steps:
          - name: count
            run: for i in $(seq 1 %d); do echo "line $i of the run"; sleep 0.5; done
        """
            .formatted(LINES);
    String deploy =
        """
        on: {push: {refs: [main]}}
        superseded: finish
        steps:
          - name: count
            run: |
              for i in $(seq 1 %d); do echo "line $i of the run"; sleep 0.6; done
              echo "deploy $KNOTLESS_RUN_SHA" >> %s
        """
            .formatted(LINES, deploys);
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir).withShellExecutor();
    for (int i = 0; i < REPOS; i++) {
      Map<String, String> files = new HashMap<>(Map.of(".knotless/workflows/ci.yml", ci));
      if (i == 0) {
        files.put(".knotless/workflows/deploy.yml", deploy);
      }
      owners.add(shape.ownerRepo("site-" + i, files));
    }
    Map<String, String> wait = Map.of("knotless.reconciler.worker.stop-wait", "25s");
    shape.startCheckWriter();
    shape.startCheckWriter();
    shape.startReconciler(wait);
    shape.startReconciler(wait);
    shape.startIngester();
  }

  @AfterAll
  static void stop() {
    if (shape != null) {
      shape.close();
    }
  }

  @Test
  void aRollingRestartOfEveryServiceLosesNoRunNoLineAndNoDeploy() throws Exception {
    Checks.await(
        Duration.ofSeconds(120),
        "the baseline passes",
        () ->
            shape.services("reconciler").stream().mapToDouble(RollingRestartIT::passes).sum()
                >= REPOS);
    List<String> pushed = new ArrayList<>();
    List<ServiceProcess> order = new ArrayList<>();
    order.addAll(shape.services("check-writer"));
    order.addAll(shape.services("reconciler"));
    order.addAll(shape.services("ingester"));
    int next = 0;
    for (int round = 0; round < ROUNDS; round++) {
      pushed.addAll(pushAll("round " + round));
      // Restart replicas while the round's steps print: one at a time, each ready before the next.
      int share = (order.size() + ROUNDS - 1) / ROUNDS;
      for (int i = 0; i < share && next < order.size(); i++, next++) {
        ServiceProcess s = order.get(next);
        s.restart();
        System.out.printf("[RollingRestartIT] restarted %s%n", s);
      }
    }

    Map<String, CheckRecord> ended = new HashMap<>();
    Checks.await(
        Duration.ofSeconds(300),
        "every pushed commit's checks ended",
        () -> {
          ended.clear();
          for (Record r : Checks.all(shape)) {
            CheckRecord c = CheckRecord.fromJson(r.value());
            if (pushed.contains(c.commit()) && c.status().ended()) {
              ended.put(c.commit() + " " + c.workflow(), c);
            }
          }
          return ended.size() == REPOS * ROUNDS + ROUNDS;
        });
    for (Record r : Checks.all(shape)) {
      CheckRecord c = CheckRecord.fromJson(r.value());
      assertTrue(c.status().ended(), "no check left " + c.status() + ": " + c);
    }
    int passed = 0;
    for (CheckRecord c : ended.values()) {
      if (c.status() == CheckStatus.CANCELLED
          && !c.workflow().equals("deploy")
          && String.valueOf(c.note()).contains("superseded")) {
        continue; // the next round's push to the same branch superseded it: its one end
      }
      passed++;
      assertEquals(CheckStatus.SUCCESS, c.status(), c.toString());
      List<String> want = new ArrayList<>(List.of("==> count"));
      for (int i = 1; i <= LINES; i++) {
        want.add("line " + i + " of the run");
      }
      assertEquals(want, List.of(Checks.log(shape, c).split("\n")), "whole log of " + c);
    }
    assertTrue(passed >= REPOS + ROUNDS, "at least the last round and both deploys passed");
    List<String> ran = Files.readAllLines(deploys);
    List<String> deployed = new ArrayList<>();
    for (String sha : pushed) {
      if (ended.containsKey(sha + " deploy")) {
        deployed.add("deploy " + sha);
      }
    }
    assertEquals(deployed, ran, "each deploy ran once, in push order");
  }

  private static List<String> pushAll(String what) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(REPOS);
    try {
      List<Future<String>> made = new ArrayList<>();
      for (OwnerRepo o : owners) {
        made.add(
            pool.submit(
                () -> {
                  o.commit(Map.of("what", what + " to " + o.key()));
                  return o.push("main");
                }));
      }
      List<String> out = new ArrayList<>();
      for (Future<String> f : made) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdown();
    }
  }

  private static double passes(ServiceProcess reconciler) {
    try {
      return Checks.passes(reconciler);
    } catch (java.io.IOException e) {
      return 0;
    }
  }
}
