package dev.knotless.runner.engine;

import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.Watched;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A start's first reads (runner.md, "A start"): every repository named, eight at a time, so a
 * runner watching hundreds does not start one round trip at a time; one that cannot be read is
 * logged and passed over until the next start. Then the checks an earlier run of this runner left
 * queued or running are ended, before any run.
 */
final class StartReads {
  private static final Logger LOG = LoggerFactory.getLogger(StartReads.class);
  private static final int AT_ONCE = 8;

  private StartReads() {}

  /**
   * The repositories that could be read, their stale checks ended.
   *
   * @throws IOException when none can be read (and there is nothing to discover), or the stale
   *     checks cannot be ended
   */
  static List<Watched> readAll(RunnerOptions o, PdsAccess access, CheckFiler filer, Clock clock)
      throws IOException {
    dev.knotless.runner.pass.LabelReads.Result result =
        dev.knotless.runner.pass.LabelReads.readAll(o.repos(), access::read);
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
    ExecutorService startPool = Executors.newFixedThreadPool(AT_ONCE, Jobs.named("knotless-start"));
    try {
      if (repos.isEmpty() && (!o.discover() || !failures.isEmpty())) {
        throw new IOException(
            "none of the repositories can be read: " + String.join("; ", failures));
      }
      List<java.util.concurrent.Future<Integer>> stale = new ArrayList<>();
      for (Watched w : repos) {
        stale.add(
            startPool.submit(
                () ->
                    filer.endStale(
                        CheckKeys.repoPrefix(w.id().ownerDid(), w.id().repoKey()),
                        clock.instant())));
      }
      for (int i = 0; i < repos.size(); i++) {
        int ended = stale.get(i).get();
        if (ended > 0) {
          LOG.info(
              "{}: ended {} checks an earlier run left queued or running",
              repos.get(i).label(),
              ended);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } finally {
      startPool.shutdownNow();
    }
    return repos;
  }
}
