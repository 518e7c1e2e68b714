package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.IdleRepos;
import dev.knotless.testing.infra.PassCosts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an idle pass costs the all-in-one runner, counted at the PDS by a {@link CountingProxy}: a
 * sweep of 1,000 watched repositories whose refs did not move reads, for each, its record, its refs
 * and the owner's rerun requests for it, all at once, and nothing else (storage.md, The snapshot;
 * runner.md, Reruns). One request more, or a read that waits on another, fails it.
 */
@WithPds
class IdlePassCostIT {
  /** How many repositories are watched; a property so a quick local run can take fewer. */
  static final int REPOS = Integer.getInteger("knotless.idle-repos", 1000);

  /**
   * How long the proxy holds a pass's read for the others of its round trip: reads sent at once
   * then overlap however busy the machine, and a read sent only after another's answer waits this
   * out alone. The first passes go unheld.
   */
  static final Duration GATHER = Duration.ofSeconds(3);

  @Test
  void anIdleSweepCostsEachRepositoryOneRoundTripOfThreeReads(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("idle");
    List<IdleRepos.Repo> repos = IdleRepos.create(pds.pdsUrl(), owner, REPOS);
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "idlerun");
        CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      IdleRepos.routeThrough(tmp.resolve("runner/cache"), proxy, owner, runner.account);
      // Sweeps far enough apart that one ends, and the proxy goes quiet, before the next (a busy
      // machine once took over 20 s for a sweep of 1,000 with its reads held).
      List<String> args = new ArrayList<>(List.of("--sweep", "60"));
      runner.start(args, IdleRepos.labels(owner, repos).toArray(String[]::new));
      RunnerHarness.await(
          Duration.ofMinutes(5),
          "the first passes of " + REPOS + " repositories (%s known)",
          () -> known(runner, owner, repos) == REPOS,
          () -> Integer.toString(known(runner, owner, repos)));
      // Between sweeps: the first passes and any sweep that overlapped them are over.
      proxy.awaitQuiet(java.time.Duration.ofSeconds(1));
      proxy.gather(PassCosts.repoOf(owner.did(), repos), 3, GATHER);
      proxy.reset();
      RunnerHarness.await(
          Duration.ofSeconds(150),
          "a sweep to read every repository (%s)",
          () -> PassCosts.of(proxy.spans(), owner.did(), repos).read() == REPOS,
          () -> PassCosts.of(proxy.spans(), owner.did(), repos).toString());
      proxy.awaitQuiet(java.time.Duration.ofSeconds(1));
      PassCosts costs = PassCosts.of(proxy.spans(), owner.did(), repos);
      System.out.println("all-in-one idle sweep: " + costs);

      // Beside the passes, the sweep itself looks once at the runner's own key record.
      assertTrue(
          costs.other().size() <= 1
              && costs.other().stream().allMatch(o -> o.contains(encoded(runner.account.did()))),
          "an idle sweep reads nothing but the repositories, and the runner's own account once: "
              + costs.other());
      assertEquals(
          PassCosts.IDLE_PASS.values().stream().mapToInt(Integer::intValue).sum() * REPOS,
          costs.requests() - costs.other().size(),
          costs.toString());
      PassCosts.IDLE_PASS.forEach(
          (m, n) -> assertEquals(n * REPOS, costs.byMethod().getOrDefault(m, 0), costs.toString()));
      assertEquals(1, costs.mostTrips(), "one round trip each; the worst: " + costs.worst());
    }
  }

  static String encoded(String did) {
    return java.net.URLEncoder.encode(did, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** How many of {@code repos} the runner's state holds: their first pass took the baseline. */
  private static int known(RunnerHarness runner, Account owner, List<IdleRepos.Repo> repos) {
    JsonStateStore state = new JsonStateStore(runner.state());
    int n = 0;
    for (IdleRepos.Repo r : repos) {
      if (state.load(owner.did() + "/" + r.key()).isPresent()) {
        n++;
      }
    }
    return n;
  }
}
