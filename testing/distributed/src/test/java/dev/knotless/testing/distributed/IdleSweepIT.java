package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.infra.IdleRepos;
import dev.knotless.testing.infra.PassCosts;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * What an idle pass costs a queue-mode reconciler, the hosted shape, counted at the PDS by a {@link
 * CountingProxy}: the ingester's sweep of 1,000 watched repositories whose refs did not move costs
 * each its record, its refs and the owner's rerun requests for it, read at once, and nothing else;
 * the same pass as the all-in-one's (libs/runner's {@code IdlePassCostIT}).
 */
class IdleSweepIT {
  /** How many repositories are watched; a property so a quick local run can take fewer. */
  static final int REPOS = Integer.getInteger("knotless.idle-repos", 1000);

  /**
   * How long the proxy holds a pass's read for the others of its round trip: reads sent at once
   * then overlap however busy the machine, and a read sent only after another's answer waits this
   * out alone. The first passes go unheld.
   */
  static final Duration GATHER = Duration.ofSeconds(3);

  @Test
  void theIngestersSweepCostsEachRepositoryOneRoundTripOfThreeReads() throws Exception {
    Path dir = Files.createTempDirectory("idle-sweep-it");
    try (LocalDistributed shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
        CountingProxy proxy = CountingProxy.start(shape.pds().pdsUrl())) {
      Account owner = shape.pds().createAccount("idle");
      List<IdleRepos.Repo> repos = IdleRepos.create(shape.pds().pdsUrl(), owner, REPOS);
      for (IdleRepos.Repo r : repos) {
        shape.watch(owner.did(), r.key(), r.name());
      }
      // The first reconciler's cache: the owner's reads and the runner's own go through the proxy.
      IdleRepos.routeThrough(dir.resolve("reconciler-1/cache"), proxy, owner, shape.runner());
      ServiceProcess reconciler = shape.startReconciler();
      // Sweeps far enough apart that one ends, and the proxy goes quiet, before the next: at load
      // 13
      // a sweep of 1,000 with its reads held took over 20 s, and two sweeps were counted as one.
      shape.startIngester(Map.of("knotless.ingester.sweep", "60s"));
      Supplier<PassCosts> costs = () -> PassCosts.of(proxy.spans(), owner.did(), repos);
      await(Duration.ofMinutes(5), "the first passes", () -> costs.get().read() == REPOS, costs);
      // Between sweeps: the first passes, and any sweep that overlapped them, are over.
      proxy.awaitQuiet(java.time.Duration.ofSeconds(1));
      proxy.gather(PassCosts.repoOf(owner.did(), repos), 3, GATHER);
      proxy.reset();
      await(Duration.ofSeconds(150), "a sweep", () -> costs.get().read() == REPOS, costs);
      proxy.awaitQuiet(java.time.Duration.ofSeconds(1));
      PassCosts sweep = costs.get();
      System.out.println("queue-mode reconciler idle sweep: " + sweep);

      assertTrue(reconciler.alive(), "the reconciler still runs");
      String runner = URLEncoder.encode(shape.runner().did(), StandardCharsets.UTF_8);
      assertTrue(
          sweep.other().stream().allMatch(o -> o.contains(runner)) && sweep.other().size() <= 1,
          "an idle sweep reads nothing but the repositories, and the runner's own account at most"
              + " once: "
              + sweep.other());
      assertEquals(
          PassCosts.IDLE_PASS.values().stream().mapToInt(Integer::intValue).sum() * REPOS,
          sweep.requests() - sweep.other().size(),
          sweep.toString());
      PassCosts.IDLE_PASS.forEach(
          (m, n) -> assertEquals(n * REPOS, sweep.byMethod().getOrDefault(m, 0), sweep.toString()));
      assertEquals(1, sweep.mostTrips(), "one round trip each; the worst: " + sweep.worst());
    }
  }

  private static void await(
      Duration max, String what, java.util.function.BooleanSupplier done, Supplier<?> seen)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out after " + max.toSeconds() + " s waiting for " + what + ": " + seen.get());
      }
      Thread.sleep(200);
    }
  }
}
