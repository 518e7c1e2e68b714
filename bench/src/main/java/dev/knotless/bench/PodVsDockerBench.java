package dev.knotless.bench;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.docker.DockerExecutor;
import dev.knotless.runner.exec.docker.DockerSettings;
import dev.knotless.runner.exec.pod.PodExecutor;
import dev.knotless.runner.exec.pod.PodSettings;
import dev.knotless.runtime.pods.Fabric8PodApi;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.LocalRegistry;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.KubeletTimes;
import dev.knotless.testing.kubelet.TestKubelet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pod executor against the docker executor in one run, on the same busybox image under the same
 * runtime: from a run handed to the executor to its first step's first line, {@code n} runs each,
 * interleaved (pod then docker, docker then pod), so both see the same load. The pods run on the
 * Fabric8 mock API server and the test kubelet, which makes each a docker container on the same
 * daemon; what the test kubelet and the mock server spend themselves ({@link KubeletTimes}: the
 * watch's delivery of the pod to the kubelet, its own API round trips until the pod is Running, and
 * per exec the bridge before docker is asked and after the command ended) is reported apart and
 * taken off the pod figure, which then says what a real kubelet would leave. Each run's pod is also
 * cut into stages, by when the API server saw each request. Last, the image pull apart: a few
 * images kept only in a real registry on 127.0.0.1, each run once pulled and once already present.
 *
 * <p>Usage: {@code bin/bench PodVsDocker [runs each (10)] [warm-up runs each (2)]
 * [sandbox|trusted]}.
 */
public final class PodVsDockerBench {

  /** The goal: the pod executor's first line within this multiple of the docker executor's. */
  static final double FLOOR = 1.5;

  private PodVsDockerBench() {}

  /** The pod stages, in order: each from hand-off to when the API server or kubelet saw it. */
  private static final String[] STAGES = {
    "pod made (API server got the create)",
    "test kubelet saw the pod",
    "pod Running (kubelet's status written)",
    "first exec reached the API server",
    "launch exec (checkout, step, follower) reached the API",
    "first line",
  };

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int warmUp = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    boolean trusted = args.length > 2 && args[2].equals("trusted");
    String runtime = trusted ? LocalDocker.TRUSTED_RUNTIME : LocalDocker.SANDBOX_RUNTIME;
    LocalDocker.ensure();
    Path root =
        Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "podvsdocker-");
    Path mirror = root.resolve("mirror.git");
    String commit = ExecutorBench.makeMirror(root, mirror);
    String did = "did:plc:podvsdocker" + Long.toHexString(System.nanoTime());
    String dockerHost = System.getenv().getOrDefault("DOCKER_HOST", DockerSettings.DEFAULT_HOST);
    RunSpec one =
        RunSpec.of(mirror, commit, List.of(ExecStep.run("first", "echo first", Duration.ZERO)));
    System.out.printf(
        Locale.ROOT,
        "PodVsDocker: %s under %s, %d runs each after %d warm-up runs each; load at start: %s%n%n",
        LocalDocker.BUSYBOX,
        runtime,
        n,
        warmUp,
        Figures.loadAverage());
    try (KubeApiServer api = KubeApiServer.start();
        TestKubelet kubelet = TestKubelet.start(api, Map.of("sandbox", runtime), 0);
        KubernetesClient client = api.client("runs", "bench-token");
        Fabric8PodApi podApi = new Fabric8PodApi(client, "runs", Duration.ZERO);
        DockerExecutor docker =
            new DockerExecutor(
                DockerSettings.defaults()
                    .withImage(LocalDocker.BUSYBOX)
                    .withDockerHost(dockerHost)
                    .withRuntimes(runtime, null),
                did + "d",
                Files.createDirectories(root.resolve("work-docker")),
                Clock.systemUTC())) {
      PodExecutor pods =
          new PodExecutor(
              podApi,
              PodSettings.defaults().withImage(LocalDocker.BUSYBOX).withRuntimes("sandbox", null),
              did + "p",
              Files.createDirectories(root.resolve("work-pod")),
              Clock.systemUTC());
      for (int i = 0; i < warmUp; i++) {
        firstLine(pods, one);
        firstLine(docker, one);
      }
      long[] dockerFirst = new long[n];
      long[] podFirst = new long[n];
      long[] kubeletShare = new long[n];
      long[][] stages = new long[STAGES.length][n];
      int[] requests = new int[n];
      int[] execs = new int[n];
      List<String> lastRequests = List.of();
      for (int i = 0; i < n; i++) {
        if (i % 2 == 0) {
          dockerFirst[i] = firstLine(docker, one).elapsed();
        }
        int seenRequests = api.timedRequests().size();
        int seenPods = kubelet.times().pods().size();
        int seenExecs = kubelet.times().execs().size();
        Timed f = firstLine(pods, one);
        podFirst[i] = f.elapsed();
        PodRun r =
            PodRun.read(
                f.begin(),
                f.at(),
                api.timedRequests().subList(seenRequests, api.timedRequests().size()),
                kubelet.times().pods().subList(seenPods, kubelet.times().pods().size()),
                kubelet.times().execs().subList(seenExecs, kubelet.times().execs().size()));
        kubeletShare[i] = r.kubeletShare();
        for (int s = 0; s < STAGES.length; s++) {
          stages[s][i] = r.stages()[s];
        }
        requests[i] = r.requestsBeforeFirstLine();
        execs[i] = r.execsBeforeFirstLine();
        lastRequests = r.lines();
        if (i % 2 == 1) {
          dockerFirst[i] = firstLine(docker, one).elapsed();
        }
        System.out.printf(
            Locale.ROOT,
            "  %2d  docker %5d ms   pod %5d ms (test kubelet's own %4d ms)%n",
            i + 1,
            dockerFirst[i] / 1_000_000,
            podFirst[i] / 1_000_000,
            kubeletShare[i] / 1_000_000);
      }
      docker.removeLeftovers();
      long[] podLess = new long[n];
      for (int i = 0; i < n; i++) {
        podLess[i] = podFirst[i] - kubeletShare[i];
      }
      report(runtime, dockerFirst, podFirst, kubeletShare, podLess, stages);
      System.out.printf(
          Locale.ROOT,
          "%nbefore the first line, per pod run (median): %d API requests, %d execs%n",
          (int) Figures.middle(java.util.Arrays.stream(requests).asLongStream().toArray()),
          (int) Figures.middle(java.util.Arrays.stream(execs).asLongStream().toArray()));
      System.out.println("the last pod run's requests, ms from hand-off:");
      lastRequests.forEach(l -> System.out.println("  " + l));
      pulls(pods, one);
    } finally {
      ExecutorBench.delete(root);
    }
    System.out.printf(Locale.ROOT, "%nload at end: %s%n", Figures.loadAverage());
  }

  /** How many images the pull section pulls, each once. */
  static final int PULLS = 3;

  /**
   * The pull apart from the start: {@link #PULLS} images each only in a real registry (Debian's
   * docker-registry on 127.0.0.1, one small layer of its own over busybox), each run twice, first
   * pulled by the test kubelet, then found on the node; the pull time is the one the pod executor
   * reads from the kubelet's Pulled event.
   */
  private static void pulls(PodExecutor pods, RunSpec one) throws Exception {
    List<java.time.Duration> pulled = new java.util.concurrent.CopyOnWriteArrayList<>();
    pods.observe(
        new dev.knotless.runner.exec.pod.PodObserver() {
          @Override
          public void pulled(Duration took) {
            pulled.add(took);
          }
        });
    long[] pull = new long[PULLS];
    long[] cold = new long[PULLS];
    long[] warm = new long[PULLS];
    try (LocalRegistry registry = LocalRegistry.start()) {
      for (int i = 0; i < PULLS; i++) {
        RunSpec spec =
            one.withOption(
                new dev.knotless.runner.exec.ContainerImage(
                    registry.publish("podvsdocker-" + i, "1")));
        cold[i] = firstLine(pods, spec).elapsed();
        warm[i] = firstLine(pods, spec).elapsed();
        if (pulled.size() != i + 1) {
          throw new IllegalStateException("pull " + (i + 1) + " was not heard: " + pulled);
        }
        pull[i] = pulled.get(i).toNanos();
      }
    } finally {
      pods.observe(dev.knotless.runner.exec.pod.PodObserver.NONE);
    }
    System.out.printf(
        Locale.ROOT,
        "%n%-58s %8s %8s %8s%n",
        "image only in a registry on 127.0.0.1, " + PULLS + " images (ms)",
        "median",
        "p90",
        "least");
    row("image pull (the kubelet's Pulled event)", pull);
    row("hand-off -> first line, image pulled", cold);
    row("hand-off -> first line, image already on the node", warm);
  }

  private static void report(
      String runtime, long[] docker, long[] pod, long[] kubelet, long[] podLess, long[][] stages) {
    System.out.printf(
        Locale.ROOT,
        "%n%-58s %8s %8s %8s%n",
        "hand-off -> first line (ms)",
        "median",
        "p90",
        "least");
    row("docker executor, " + runtime, docker);
    row("pod executor, test kubelet on the same daemon", pod);
    row("  of which the test kubelet's and mock server's own", kubelet);
    row("pod executor less the test kubelet's own", podLess);
    double ratio = (double) Figures.middle(pod) / Figures.middle(docker);
    double ratioLess = (double) Figures.middle(podLess) / Figures.middle(docker);
    System.out.printf(
        Locale.ROOT,
        "%npod / docker, medians: %.2fx as measured, %.2fx less the test kubelet's own"
            + " (floor %.1fx: %s, %s)%n",
        ratio,
        ratioLess,
        FLOOR,
        ratio <= FLOOR ? "met" : "not met",
        ratioLess <= FLOOR ? "met" : "not met");
    System.out.printf(
        Locale.ROOT, "%n%-58s %8s %8s%n", "pod stages, from hand-off (ms)", "median", "p90");
    for (int s = 0; s < STAGES.length; s++) {
      System.out.printf(
          Locale.ROOT,
          "%-58s %8d %8d%n",
          STAGES[s],
          Figures.middle(stages[s]) / 1_000_000,
          ExecutorBench.percentile(stages[s], 90) / 1_000_000);
    }
  }

  private static void row(String name, long[] nanos) {
    System.out.printf(
        Locale.ROOT,
        "%-58s %8d %8d %8d%n",
        name,
        Figures.middle(nanos) / 1_000_000,
        ExecutorBench.percentile(nanos, 90) / 1_000_000,
        Figures.smallest(nanos) / 1_000_000);
  }

  /** Runs the one-step spec; checks it passed and its first line said {@code first}. */
  private static Timed firstLine(Executor executor, RunSpec spec) {
    FirstLine listener = new FirstLine();
    RunResult result = executor.run(spec, new RunCancellation(), listener);
    if (!(result.outcome() instanceof RunOutcome.Passed)) {
      throw new IllegalStateException(
          executor.name() + " run did not pass: " + result.outcome() + "\n" + result.logText());
    }
    if (listener.at == 0 || !"first".equals(listener.text)) {
      throw new IllegalStateException(
          executor.name() + ": the first step's first line was " + listener.text);
    }
    return new Timed(listener.begin, listener.at);
  }

  private record Timed(long begin, long at) {
    long elapsed() {
      return at - begin;
    }
  }
}
