package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.infra.OwnerRepo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Every repository given pushed at the same moment, and each push's check awaited. */
final class PushedAtOnce {
  private PushedAtOnce() {}

  /**
   * Commits to each repository's main, each its own content (two repositories' equal commits would
   * share a SHA), and pushes them all at once; then waits for each push's check to end success.
   *
   * @return the commits pushed, in the order of {@code repos}
   */
  static List<String> pushAndAwaitSuccess(LocalDistributed shape, List<OwnerRepo> repos)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(repos.size());
    try {
      List<Future<String>> pushed = new ArrayList<>();
      for (OwnerRepo o : repos) {
        pushed.add(
            pool.submit(
                () -> {
                  o.commit(Map.of("n", "pushed to " + o.key() + "\n"));
                  return o.push("main");
                }));
      }
      List<String> shas = new ArrayList<>();
      for (Future<String> sha : pushed) {
        shas.add(sha.get());
        CheckRecord c = CountingRuns.awaitEnded(shape, sha.get());
        assertEquals(CheckStatus.SUCCESS, c.status(), c.toString());
      }
      return shas;
    } finally {
      pool.shutdown();
    }
  }
}
