package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.infra.IdleRepos;
import dev.knotless.testing.infra.PassCosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Doorbell partitions moving between reconcilers re-pass no repository already passed. Reconciler 1
 * starts alone with 600 idle repositories and is given every partition; reconciler 2 is started
 * once 1 has begun passing and takes half the partitions, with whatever passes 1 still owed on them
 * (some, or none on a quiet machine where 1 is done first: AssignedDoorsTest covers passes owed);
 * once every repository has been passed, reconciler 3 joins and takes its share. Counted by the
 * reconcilers' pass counters and, for "every repository passed", by a {@link CountingProxy} in
 * front of the PDS. No ingester runs: nothing else rings a door.
 */
class HandOverIT {
  private static final int REPOS = 600;

  /** A pass running when its partition moves is passed again by the new owner: at most these. */
  private static final int PASS_THREADS = 4;

  private static final String PASSES = "knotless_run_passes_total";

  @Test
  void aHandOverPassesOnlyWhatWasOwedAndEveryRepositoryAtLeastOnce() throws Exception {
    Path dir = Files.createTempDirectory("hand-over-it");
    try (LocalDistributed shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
        CountingProxy proxy = CountingProxy.start(shape.pds().pdsUrl())) {
      Account owner = shape.pds().createAccount("idle");
      List<IdleRepos.Repo> repos = IdleRepos.create(shape.pds().pdsUrl(), owner, REPOS);
      for (IdleRepos.Repo r : repos) {
        shape.watch(owner.did(), r.key(), r.name());
      }
      for (int i = 1; i <= 3; i++) {
        IdleRepos.routeThrough(
            dir.resolve("reconciler-" + i + "/cache"), proxy, owner, shape.runner());
      }
      List<ServiceProcess> reconcilers = new ArrayList<>();
      reconcilers.add(shape.startReconciler());
      await("reconciler 1 passing", () -> passes(reconcilers) >= 1, reconcilers);
      reconcilers.add(shape.startReconciler());
      await(
          "every repository passed",
          () -> PassCosts.of(proxy.spans(), owner.did(), repos).read() == REPOS,
          reconcilers);
      proxy.awaitQuiet(Duration.ofSeconds(2));
      double afterTwo = passes(reconcilers);
      System.out.println(
          "hand-over: "
              + afterTwo
              + " passes for "
              + REPOS
              + " repositories, reconciler 1 "
              + reconcilers.get(0).metric(PASSES)
              + ", reconciler 2 "
              + reconcilers.get(1).metric(PASSES));
      assertTrue(
          afterTwo <= REPOS + PASS_THREADS,
          afterTwo + " passes for " + REPOS + " repositories: a hand-over re-passed some");
      assertTrue(
          log(reconcilers.get(0)).contains("handed over: "),
          "reconciler 1 handed its partitions over");

      // Every repository passed, nothing owed: a third reconciler's share costs no pass.
      reconcilers.add(shape.startReconciler());
      await(
          "reconciler 3 given partitions handed over",
          () -> log(reconcilers.get(2)).contains("handed over: their doorbells only"),
          reconcilers);
      proxy.awaitQuiet(Duration.ofSeconds(2));
      assertEquals(
          afterTwo, passes(reconcilers), "a hand-over with nothing owed passes no repository");
      for (ServiceProcess r : reconcilers) {
        assertTrue(r.alive(), r + " still runs");
      }
    }
  }

  private static double passes(List<ServiceProcess> reconcilers) throws IOException {
    double sum = 0;
    for (ServiceProcess r : reconcilers) {
      sum += r.metric(PASSES);
    }
    return sum;
  }

  private static String log(ServiceProcess p) throws IOException {
    return Files.readString(p.log());
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private static void await(String what, Check check, List<ServiceProcess> reconcilers)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(4).toNanos();
    while (!check.holds()) {
      if (System.nanoTime() > deadline) {
        fail("no " + what + " in 4 minutes; passes " + passes(reconcilers));
      }
      Thread.sleep(200);
    }
  }
}
