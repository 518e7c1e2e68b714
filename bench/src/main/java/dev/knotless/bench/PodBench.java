package dev.knotless.bench;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.pod.PodExecutor;
import dev.knotless.runner.exec.pod.PodSettings;
import dev.knotless.runtime.pods.Fabric8PodApi;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.TestKubelet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The pod executor against the Fabric8 mock API server and the test kubelet (each pod a real
 * container on the local daemon): how long a run takes from being handed to the executor to its
 * first step's first line (the pod made, running, the checkout copied in, the step launched and
 * followed), one run at a time; and how many one-step runs of pods go through per second when
 * {@code parallel} run at once.
 *
 * <p>Usage: {@code bin/bench Pod [sequential runs (10)] [parallel runs (16)] [at once (8)]}.
 */
public final class PodBench {

  private PodBench() {}

  public static void main(String[] args) throws Exception {
    int sequential = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int parallel = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int atOnce = args.length > 2 ? Integer.parseInt(args[2]) : 8;
    LocalDocker.ensure();
    Path root =
        Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "pod-bench-");
    Path mirror = root.resolve("mirror.git");
    String commit = ExecutorBench.makeMirror(root, mirror);
    Path work = Files.createDirectories(root.resolve("work"));
    try (KubeApiServer api = KubeApiServer.start();
        TestKubelet kubelet =
            TestKubelet.start(api, Map.of("gvisor", LocalDocker.SANDBOX_RUNTIME), 0);
        KubernetesClient client = api.client("runs", "bench-token")) {
      PodExecutor executor =
          new PodExecutor(
              new Fabric8PodApi(client, "runs", Duration.ZERO),
              PodSettings.defaults().withImage(LocalDocker.BUSYBOX).withRuntimes("gvisor", null),
              "did:plc:podbench" + Long.toHexString(System.nanoTime()),
              work,
              Clock.systemUTC());
      RunSpec one =
          RunSpec.of(mirror, commit, List.of(ExecStep.run("first", "echo first", Duration.ZERO)));

      run(executor, one, new RunListener() {}); // warm-up: the JIT, the clients, the daemon
      long[] toFirstLine = new long[sequential];
      long[] whole = new long[sequential];
      for (int i = 0; i < sequential; i++) {
        long begin = System.nanoTime();
        long[] first = {0};
        boolean[] header = {false};
        run(
            executor,
            one,
            RunListener.lines(
                line -> {
                  // The pod's own line ("pod ... from ...") comes before the step's header; the
                  // step's first line is the one after the header.
                  if (line.startsWith("==> ")) {
                    header[0] = true;
                  } else if (header[0] && first[0] == 0) {
                    first[0] = System.nanoTime();
                  }
                }));
        whole[i] = System.nanoTime() - begin;
        toFirstLine[i] = first[0] - begin;
      }

      ExecutorService pool = Executors.newFixedThreadPool(atOnce);
      long begin = System.nanoTime();
      List<Future<?>> runs = new ArrayList<>();
      for (int i = 0; i < parallel; i++) {
        runs.add(pool.submit(() -> run(executor, one, new RunListener() {})));
      }
      for (Future<?> f : runs) {
        f.get();
      }
      long took = System.nanoTime() - begin;
      pool.shutdown();

      System.out.printf(
          Locale.ROOT, "%-52s %9s %9s %9s%n", "pod executor, ms", "median", "p90", "least");
      row("handed to the executor -> first step's first line", toFirstLine);
      row("one-step run, whole (pod made to pod deleted)", whole);
      System.out.printf(
          Locale.ROOT,
          "%d one-step runs, %d at once: %.2f runs (pods made, run, deleted) per second%n",
          parallel,
          atOnce,
          parallel / (took / 1e9));
    } finally {
      ExecutorBench.delete(root);
    }
  }

  private static void run(PodExecutor executor, RunSpec spec, RunListener listener) {
    RunResult r = executor.run(spec, new RunCancellation(), listener);
    if (!(r.outcome() instanceof RunOutcome.Passed)) {
      throw new IllegalStateException(
          "a pod run did not pass: " + r.outcome() + "\n" + r.logText());
    }
  }

  private static void row(String name, long[] nanos) {
    System.out.printf(
        Locale.ROOT,
        "%-52s %9d %9d %9d%n",
        name,
        ExecutorBench.percentile(nanos, 50) / 1_000_000,
        ExecutorBench.percentile(nanos, 90) / 1_000_000,
        Figures.smallest(nanos) / 1_000_000);
  }
}
