package dev.knotless.runner.engine;

import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pass.LabelReads;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.PruneAhead;
import dev.knotless.runner.pass.Watched;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A start's first reads (runner.md, "A start"): every repository named, a few at a time ({@link
 * LabelReads}), so a runner watching hundreds does not start one round trip at a time; one that
 * cannot be read is logged and passed over until the next start. Then the checks an earlier run of
 * this runner left queued or running are ended, before any run: listed per repository for a few,
 * or, for many, in one listing of the runner's checks, whose pages are fewer than the repositories
 * while pruning keeps the checks few. That listing also says which repositories hold no checks at
 * all, whose first passes then need not list them again to prune.
 */
final class StartReads {
  private static final Logger LOG = LoggerFactory.getLogger(StartReads.class);
  private static final int AT_ONCE = LabelReads.AT_ONCE;

  /**
   * What a start read: the repositories, and the state keys of those it knows hold no checks of
   * this runner's (empty when the checks were listed per repository).
   */
  record Started(List<Watched> repos, Set<String> withoutChecks) {}

  private StartReads() {}

  /**
   * The repositories that could be read, their stale checks ended.
   *
   * @throws IOException when none can be read (and there is nothing to discover), or the stale
   *     checks cannot be ended
   */
  static Started readAll(RunnerOptions o, PdsAccess access, CheckFiler filer, Clock clock)
      throws IOException {
    LabelReads.Result result = access.readAll(o.repos());
    List<Watched> repos = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    for (Watched w : result.read()) {
      LOG.info("{}: watching {}", w.label(), w.stateKey());
      repos.add(w);
    }
    result
        .failed()
        .forEach(
            (label, why) -> {
              LOG.error("{}: cannot be watched, passed over until the next start: {}", label, why);
              failures.add(label + ": " + why);
            });
    if (repos.isEmpty() && (!o.discover() || !failures.isEmpty())) {
      throw new IOException("none of the repositories can be read: " + String.join("; ", failures));
    }
    if (repos.size() >= PruneAhead.ONE_LISTING_FROM) {
      return endStaleListedOnce(repos, filer, clock);
    }
    ExecutorService startPool =
        Executors.newFixedThreadPool(AT_ONCE, NamedThreads.of("knotless-start"));
    try {
      List<Future<Integer>> stale = new ArrayList<>();
      for (Watched w : repos) {
        stale.add(startPool.submit(() -> filer.endStale(prefix(w), clock.instant())));
      }
      for (int i = 0; i < repos.size(); i++) {
        logEnded(repos.get(i), stale.get(i).get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } finally {
      startPool.shutdownNow();
    }
    return new Started(repos, Set.of());
  }

  private static Started endStaleListedOnce(List<Watched> repos, CheckFiler filer, Clock clock)
      throws IOException {
    Map<String, List<Record>> byPrefix = filer.listByRepo();
    Set<String> without = new HashSet<>();
    for (Watched w : repos) {
      // A private repository's checks are in its space, not in the one listing of the account's.
      List<Record> checks = w.privateRepo() ? filer.list(prefix(w)) : byPrefix.get(prefix(w));
      if (checks == null || checks.isEmpty() && w.privateRepo()) {
        without.add(w.stateKey());
      } else {
        logEnded(w, filer.endStale(checks, clock.instant()));
      }
    }
    return new Started(repos, without);
  }

  private static String prefix(Watched w) {
    return CheckKeys.repoPrefix(w.id().ownerDid(), w.id().repoKey());
  }

  private static void logEnded(Watched w, int ended) {
    if (ended > 0) {
      LOG.info("{}: ended {} checks an earlier run left queued or running", w.label(), ended);
    }
  }
}
