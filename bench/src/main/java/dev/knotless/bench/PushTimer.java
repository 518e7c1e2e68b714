package dev.knotless.bench;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.infra.OwnerRepo;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * Pushes commits to a watched repository one after another and times each from its ref write (the
 * push returning) to its check seen queued, then running, then ended, in the runner's account,
 * polled every 10 ms from the PDS directly. Each push waits for the previous check to end, and a
 * check that ends other than {@code success} stops the measure: its times would be of another path.
 */
final class PushTimer {
  /** One step that does nothing, on every push. */
  static final String WORKFLOW = "on: {push: {}}\nsteps: [{name: s, run: 'true'}]\n";

  /** What the repository holds before the first timed push. */
  static final Map<String, String> FILES =
      Map.of(".knotless/workflows/ci.yml", WORKFLOW, "n.txt", "0\n");

  private static final Duration MAX = Duration.ofSeconds(120);

  /** What a benchmark does around each push, to count what the push cost. */
  interface Hooks {
    /** Does nothing around a push. */
    Hooks NONE =
        new Hooks() {
          @Override
          public void beforePush() {}

          @Override
          public void atRunning() {}

          @Override
          public void afterEnd() {}
        };

    void beforePush() throws IOException;

    /** The push returned, its ref written, at {@code wroteNanos} ({@link System#nanoTime()}). */
    default void pushed(long wroteNanos) {}

    /**
     * The check was seen past queued (running, or already ended if the step was that quick). The
     * time this takes delays the sight of the check's end by as much.
     */
    void atRunning() throws IOException;

    void afterEnd() throws IOException, InterruptedException;
  }

  /** Nanoseconds from each ref write to its check seen queued, running, and ended. */
  record Times(long[] queued, long[] running, long[] ended) {}

  private PushTimer() {}

  static Times run(OwnerRepo repo, URI pds, String runnerDid, int n, Hooks hooks)
      throws IOException, InterruptedException {
    String key = repo.key();
    XrpcClient reader = XrpcClient.create(pds);
    long[] queued = new long[n];
    long[] running = new long[n];
    long[] ended = new long[n];
    for (int i = 0; i < n; i++) {
      String sha = repo.commit(Map.of("n.txt", (i + 1) + "\n"));
      String rkey = CheckKeys.push(repo.account.did(), key, "refs/heads/main", sha, "ci");
      hooks.beforePush();
      repo.push("main");
      long wrote = System.nanoTime();
      hooks.pushed(wrote);
      CheckStatus seen = null;
      while (seen == null || !seen.ended()) {
        CheckStatus s = status(reader, runnerDid, rkey);
        if (s != null && queued[i] == 0) {
          queued[i] = System.nanoTime() - wrote;
        }
        if (s != null && s != CheckStatus.QUEUED && running[i] == 0) {
          running[i] = System.nanoTime() - wrote;
          hooks.atRunning();
        }
        seen = s;
        if (s != null && s.ended()) {
          ended[i] = System.nanoTime() - wrote;
          if (s != CheckStatus.SUCCESS) {
            throw new IllegalStateException("push " + i + "'s check ended " + s.wire());
          }
        }
        if (System.nanoTime() - wrote > MAX.toNanos()) {
          throw new IllegalStateException("push " + i + " was not run within " + MAX);
        }
        Thread.sleep(10);
      }
      hooks.afterEnd();
    }
    return new Times(queued, running, ended);
  }

  private static CheckStatus status(XrpcClient reader, String did, String rkey) throws IOException {
    return reader
        .findRecord(did, CheckRecord.COLLECTION, rkey)
        .map(r -> CheckRecord.fromJson(r.value()).status())
        .orElse(null);
  }
}
