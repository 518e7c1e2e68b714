package dev.knotless.bench;

import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.CacheUse;
import dev.knotless.runner.exec.pod.PodExecutor;
import dev.knotless.runner.exec.pod.PodSettings;
import dev.knotless.runtime.pods.Fabric8PodApi;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.KubeletTimes;
import dev.knotless.testing.kubelet.TestKubelet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@link CacheBench}'s build on pods: the pod executor against the Fabric8 mock API server and the
 * test kubelet (each pod a container on the local daemon, under gVisor). By default its caches are
 * kept on the node ({@link PodExecutor#keepCachesOnNode}): each run's overlay is mounted on this
 * machine and bound into the pod as a hostPath volume, nothing copied; with {@code copy} they are
 * kept on the runner's disk and copied into each pod as its checkout is, and back out after a pass.
 * Each iteration's workflow runs cold, as a push to the default branch that makes 10,000 files and
 * promotes them, then warm, finding them. A run of an empty step with the same cache gives what a
 * pod costs with no work in it. Prints the runs and the cold run's time over the warm run's beside
 * the goal of 3.
 *
 * <p>Runs as root (overlay mounts). Usage: {@code bin/bench PodCache [iterations (3)] [sandbox
 * (gVisor, the default) | trusted (runc)] [node (the default) | copy]}.
 */
public final class PodCacheBench {

  /** The goal: a warm run at least this many times faster than a cold one. */
  static final double GOAL = 3.0;

  private static final java.util.regex.Pattern COPIED_IN =
      java.util.regex.Pattern.compile("cache /cache: copied into the pod \\((\\d+) ms\\)");

  private static final java.util.regex.Pattern COPIED_OUT =
      java.util.regex.Pattern.compile("cache /cache: copied out of the pod, .* \\((\\d+) ms\\)");

  private PodCacheBench() {}

  /** The milliseconds a log line matched by {@code p} gives, in nanoseconds. */
  private static long logged(java.util.regex.Pattern p, RunResult r) {
    java.util.regex.Matcher m = p.matcher(r.logText());
    if (!m.find()) {
      throw new IllegalStateException("no line " + p + " in:\n" + r.logText());
    }
    return Long.parseLong(m.group(1)) * 1_000_000;
  }

  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    boolean trusted = args.length > 1 && args[1].equals("trusted");
    boolean copy = args.length > 2 && args[2].equals("copy");
    String runtime = trusted ? LocalDocker.TRUSTED_RUNTIME : LocalDocker.SANDBOX_RUNTIME;
    LocalDocker.ensure();
    Path root =
        Files.createTempDirectory(
            Path.of(System.getProperty("java.io.tmpdir")), "pod-cache-bench-");
    Path mirror = root.resolve("mirror.git");
    String commit = ExecutorBench.makeMirror(root, mirror);
    Path work = Files.createDirectories(root.resolve("work"));
    System.out.printf(
        Locale.ROOT,
        "PodCacheBench: %d iterations, 10,000 files in the cache, pods under %s, caches %s;"
            + " load average at start: %s%n%n",
        iterations,
        runtime,
        copy ? "copied in and out (copy)" : "volumes of the node (node)",
        Figures.loadAverage());
    long[] cold = new long[iterations];
    long[] promote = new long[iterations];
    long[] warm = new long[iterations];
    long[] copyOut = new long[iterations];
    long[] copyIn = new long[iterations];
    long[] empty = new long[iterations];
    try (KubeApiServer api = KubeApiServer.start();
        TestKubelet kubelet = TestKubelet.start(api, Map.of("class", runtime), 0);
        KubernetesClient client = api.client("runs", "bench-token")) {
      PodExecutor executor =
          new PodExecutor(
              new Fabric8PodApi(client, "runs", Duration.ZERO),
              PodSettings.defaults().withImage(LocalDocker.BUSYBOX).withRuntimes("class", null),
              "did:plc:podcachebench" + Long.toHexString(System.nanoTime()),
              work,
              Clock.systemUTC(),
              new CacheStore(root.resolve("caches"), CacheStore.DEFAULT_MAX_BYTES),
              null);
      if (!copy) {
        executor.keepCachesOnNode(null);
      }
      // Warm-up: the JIT, the clients, the daemon; a workflow of its own.
      CacheBench.run(executor, mirror, commit, "warm-up", "true", CacheUse.READ);
      Staged staged = new Staged(api, kubelet, iterations);
      for (int i = 0; i < iterations; i++) {
        String workflow = "build-" + i;
        RunResult c =
            staged.run(
                0,
                i,
                executor,
                mirror,
                commit,
                workflow,
                CacheBench.BUILD,
                CacheUse.PROMOTE_ON_PASS);
        cold[i] = CacheBench.took();
        promote[i] = CacheBench.promotedMs(c) * 1_000_000;
        copyOut[i] = copy ? logged(COPIED_OUT, c) : 0;
        RunResult w =
            staged.run(1, i, executor, mirror, commit, workflow, CacheBench.BUILD, CacheUse.READ);
        warm[i] = CacheBench.took();
        copyIn[i] = copy ? logged(COPIED_IN, w) : 0;
        if (!w.logText().contains("warm")) {
          throw new IllegalStateException("the second run was not warm:\n" + w.logText());
        }
        if (!copy && !w.logText().contains("cache /cache: a volume of the node, nothing copied")) {
          throw new IllegalStateException("the cache was not a volume:\n" + w.logText());
        }
        staged.run(2, i, executor, mirror, commit, workflow, "true", CacheUse.READ);
        empty[i] = CacheBench.took();
        System.out.printf(
            Locale.ROOT,
            "  %d  cold %s (promotion %d ms), warm %s, empty step %s%n",
            i + 1,
            Figures.seconds(cold[i]),
            promote[i] / 1_000_000,
            Figures.seconds(warm[i]),
            Figures.seconds(empty[i]));
      }
      executor.removeLeftovers();
      PodRunStages.print(new String[] {"cold", "warm", "empty"}, staged.runs);
      long[] coldLess = PodRunStages.less(staged.runs[0]);
      long[] warmLess = PodRunStages.less(staged.runs[1]);
      System.out.printf(
          Locale.ROOT,
          "cold over warm less the test kubelet's own (medians): %.2fx%n",
          (double) median(coldLess) / median(warmLess));
    } finally {
      ExecutorBench.delete(root);
    }
    System.out.printf(Locale.ROOT, "%n%-52s %9s %9s %9s%n", "measure (ms)", "median", "min", "max");
    CacheBench.row("cold build on a pod (makes 10,000 files), whole run", cold);
    if (copy) {
      CacheBench.row("  of which copy out of the pod and diff", copyOut);
    }
    CacheBench.row("  of which promotion of 10,000 new files", promote);
    CacheBench.row("warm build on a pod (finds them), whole run", warm);
    if (copy) {
      CacheBench.row("  of which copy into the pod", copyIn);
    }
    CacheBench.row("an empty step on a pod with the cache, whole run", empty);
    double ratio = (double) median(cold) / median(warm);
    System.out.printf(
        Locale.ROOT,
        "%ncold over warm (medians): %.1fx, goal at least %.0fx: %s%n",
        ratio,
        GOAL,
        ratio >= GOAL ? "met" : "NOT met");
    System.out.printf(Locale.ROOT, "load average at end: %s%n", Figures.loadAverage());
  }

  /** Runs each cut into {@link PodRunStages}: per kind (cold, warm, empty), per iteration. */
  private static final class Staged {
    final KubeApiServer api;
    final TestKubelet kubelet;
    final long[][][] runs;

    Staged(KubeApiServer api, TestKubelet kubelet, int iterations) {
      this.api = api;
      this.kubelet = kubelet;
      this.runs = new long[3][iterations][];
    }

    RunResult run(
        int kind,
        int i,
        PodExecutor executor,
        Path mirror,
        String commit,
        String workflow,
        String script,
        CacheUse use) {
      int requests = api.timedRequests().size();
      int pods = kubelet.times().pods().size();
      int execs = kubelet.times().execs().size();
      PodRunStages.Heard heard = new PodRunStages.Heard();
      RunResult r = CacheBench.run(executor, mirror, commit, workflow, script, use, heard);
      long returned = System.nanoTime();
      List<KubeletTimes.Exec> all = kubelet.times().execs();
      runs[kind][i] =
          PodRunStages.read(
              heard,
              returned,
              api.timedRequests().subList(requests, api.timedRequests().size()),
              kubelet.times().pods().subList(pods, kubelet.times().pods().size()),
              all.subList(execs, all.size()));
      return r;
    }
  }

  private static long median(long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    return s[(s.length - 1) / 2];
  }
}
