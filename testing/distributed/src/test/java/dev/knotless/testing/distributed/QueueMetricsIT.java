package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.testing.infra.OwnerRepo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The queue-depth metrics the chart scales on, read off a reconciler's {@code /q/metrics} by exact
 * name: the doorbell lag rises while repositories wait for a pass thread and falls to nothing once
 * they have passed; the waiting runs rise while pushes wait for the scheduler's one job and fall to
 * nothing once every run has ended.
 */
class QueueMetricsIT {
  static final String DOORS_WAITING = "knotless_run_doorbells_waiting";
  static final String DOORBELL_LAG = "knotless_run_doorbells_lag_seconds";
  static final String RUNS_WAITING = "knotless_run_runs_waiting";
  private static final int REPOS = 6;

  private static LocalDistributed shape;
  private static final List<OwnerRepo> owners = new ArrayList<>();
  private static ServiceProcess reconciler;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("queue-metrics-it");
    String ci =
        """
        on: {push: {refs: [main]}}
        steps:
          - name: work
            run: sleep 12; echo done
        """;
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    for (int i = 0; i < REPOS; i++) {
      owners.add(shape.ownerRepo("app-" + i, Map.of(".knotless/workflows/ci.yml", ci)));
    }
    shape.startCheckWriter();
    // One pass and one run pod at a time: rings and runs queue behind them.
    reconciler =
        shape.startReconciler(
            Map.of(
                "knotless.reconciler.pass-threads", "1",
                "knotless.reconciler.queue-gauge-refresh", "1s"));
    shape.startScheduler(Map.of("knotless.scheduler.jobs", "1"));
    shape.startIngester();
  }

  @AfterAll
  static void stop() {
    if (shape != null) {
      shape.close();
    }
  }

  @Test
  void theDoorbellLagAndTheWaitingRunsRiseAsWorkQueuesAndFallToZeroAsItDrains() throws Exception {
    Checks.await(
        Duration.ofSeconds(120),
        "every repository's first pass",
        () -> Checks.passes(reconciler) >= REPOS && exact(DOORS_WAITING) == 0);

    // Every repository pushed at once: their frames ring six doors for one pass thread, and the
    // six runs those passes file wait for one job.
    Watch watch = Watch.start(DOORS_WAITING, DOORBELL_LAG, RUNS_WAITING);
    PushedAtOnce.pushAndAwaitSuccess(shape, owners);
    Checks.await(
        Duration.ofSeconds(30),
        "nothing owed or waiting",
        () -> exact(DOORS_WAITING) == 0 && exact(RUNS_WAITING) == 0);
    watch.stop();
    assertTrue(watch.max(0) >= 2, "repositories waited for the pass thread: " + watch.max(0));
    assertTrue(watch.max(1) > 0, "the oldest of them waited a while: " + watch.max(1));
    assertTrue(watch.max(2) >= 2, "runs waited for the one job: " + watch.max(2));
    assertEquals(0, exact(DOORBELL_LAG), "the lag is nothing once drained");
    System.out.printf(
        "[QueueMetricsIT] at most %.0f doors waiting (oldest %.2f s), %.0f runs waiting%n",
        watch.max(0), watch.max(1), watch.max(2));
  }

  /** The sum of the samples of exactly {@code name} (any tags) on the reconciler now. */
  static double exact(String name) throws IOException {
    double sum = 0;
    for (String line : reconciler.metrics().split("\n")) {
      if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
        sum += ServiceProcess.sampleValue(line);
      }
    }
    return sum;
  }

  /** Reads some metrics every 200 ms on a thread of its own and keeps the most each reached. */
  private static final class Watch {
    private final String[] names;
    private final double[] max;
    private final AtomicBoolean going = new AtomicBoolean(true);
    private final Thread thread;

    private Watch(String[] names) {
      this.names = names;
      this.max = new double[names.length];
      this.thread = new Thread(this::loop, "metrics-watch");
    }

    static Watch start(String... names) {
      Watch w = new Watch(names);
      w.thread.start();
      return w;
    }

    private void loop() {
      while (going.get()) {
        for (int i = 0; i < names.length; i++) {
          try {
            double v = exact(names[i]);
            synchronized (this) {
              max[i] = Math.max(max[i], v);
            }
          } catch (IOException | RuntimeException e) {
            // the reconciler may be starting; the next read counts
          }
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    void stop() throws InterruptedException {
      going.set(false);
      thread.join();
    }

    synchronized double max(int i) {
      return max[i];
    }
  }
}
