package dev.knotless.allinone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code knotless-run}, as a user starts it: stopped with SIGTERM mid-run, the signal
 * handler stops the runner after {@code --stop-wait}, no check is left running, the process exits
 * 0, and the next start runs the run the stop dropped. While it runs, {@code /q/metrics} shows why
 * runs wait, by class and reason, with no owner in any label.
 */
@WithPds
class SignalIT {
  static final String SLOW =
      """
      on: {push: {}}
      steps:
        - name: long
          run: echo started; sleep 120
      """;
  static final String QUICK =
      """
      on: {push: {}}
      steps:
        - name: quick
          run: echo "quick ran"
      """;

  @Test
  void sigtermMidRunEndsEveryCheckAndTheNextStartRunsTheDroppedRun(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    PackagedRunner r = new PackagedRunner(pds, tmp);
    r.owner.commit(Map.of("README.md", "hello\n"));
    r.owner.push("main");
    String stateKey = r.owner.account.did() + "/" + r.owner.key();

    Process first = r.start("--jobs", "1", "--stop-wait", "1");
    String sha;
    try {
      r.await(
          "the first pass",
          () -> new JsonStateStore(tmp.resolve("state.json")).load(stateKey).isPresent());
      sha =
          r.owner.commit(
              Map.of(
                  ".knotless/workflows/a-slow.yml",
                  SLOW,
                  ".knotless/workflows/b-quick.yml",
                  QUICK));
      r.owner.push("main");
      r.await("the slow run", () -> r.status(sha, "a-slow") == CheckStatus.RUNNING);

      // One job, taken by the slow run: the quick one waits, and the metrics say which class
      // waits and why (one owner at --jobs 1 meets the owner cap first).
      r.await("the waiting run in the metrics", () -> waiting(r, "main") == 1.0);
      String metrics = r.metrics();
      assertTrue(
          metrics.contains("knotless_run_runs_waiting{class=\"main\",reason=\"owner_cap\"} 1.0"),
          metrics);
      assertTrue(metrics.contains("knotless_run_runs_running 1.0"), metrics);
      assertTrue(!metrics.contains("did:"), "no owner in a label: " + metrics);

      long t0 = System.nanoTime();
      first.destroy(); // SIGTERM
      assertTrue(first.waitFor(60, TimeUnit.SECONDS), "knotless-run ended after SIGTERM");
      long stopMillis = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(0, first.exitValue(), "a stop asked for is a clean exit");
      assertTrue(stopMillis < 30_000, "stopped after --stop-wait, not the step: " + stopMillis);
      assertEquals(CheckStatus.CANCELLED, r.status(sha, "a-slow"));
      assertEquals(CheckStatus.CANCELLED, r.status(sha, "b-quick"));
      assertTrue(Files.readString(r.log(1)).contains("stop asked for"), "the log says why");
    } finally {
      first.destroyForcibly();
    }

    Process second = r.start("--jobs", "1", "--stop-wait", "1");
    try {
      r.await("the dropped run", () -> r.status(sha, "b-quick") == CheckStatus.SUCCESS);
      assertEquals(
          CheckStatus.CANCELLED, r.status(sha, "a-slow"), "only the dropped workflow runs again");
    } finally {
      second.destroy();
      second.waitFor(60, TimeUnit.SECONDS);
    }
  }

  /** The runs of {@code runClass} waiting, whatever the reason, as the metrics say. */
  private static double waiting(PackagedRunner r, String runClass) {
    try {
      double sum = 0;
      for (String line : r.metrics().split("\n")) {
        if (line.startsWith("knotless_run_runs_waiting{class=\"" + runClass + "\"")) {
          sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      return sum;
    } catch (Exception e) {
      return -1;
    }
  }
}
