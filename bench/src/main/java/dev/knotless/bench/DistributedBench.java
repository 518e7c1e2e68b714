package dev.knotless.bench;

import dev.knotless.testing.Account;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.distributed.LocalDistributed;
import dev.knotless.testing.distributed.ServiceProcess;
import dev.knotless.testing.distributed.SweepRings;
import dev.knotless.testing.infra.IdleRepos;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.TestKubelet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The hosted shape beside the all-in-one runner, on one reference PDS and with the same number of
 * watched repositories. The all-in-one runs each job with the docker executor under gVisor's runsc
 * (the harness daemon's {@code knotless-sandbox}); the hosted shape is the ingester, the broker,
 * reconcilers that only queue runs, the scheduler that runs each as a pod of RuntimeClass {@code
 * gvisor} on the Fabric8 mock API server, the test kubelet that runs the pod as a container under
 * the same runsc, and the check-writer. Per push it times the ref write to the check filed running
 * and to it ended {@code success}, with the PDS requests each push costs (the all-in-one's through
 * a counting proxy, the services' from {@code knotless.run.pds.requests}), the scheduler's {@code
 * knotless.run.pod.start} and where the pod path spends its time ({@link PodTimeline}). Then how
 * many passes a second the reconcilers make when every door is rung at once, with the PDS requests
 * each pass costs. Then the same with one more reconciler replica, up to {@code replicas}. The
 * services run as processes from their built jars. Prints tables ({@link DistributedTable}). Run:
 * {@code bin/bench Distributed [pushes (5)] [repositories (1000)] [replicas (2)] [rings (3)]}.
 */
public final class DistributedBench {
  static final String PASSES = "knotless_run_passes_total";
  static final String PASSES_OK = "knotless_run_passes_total{outcome=\"ok\"";
  static final String PDS_REQUESTS = "knotless_run_pds_requests_total";
  private static final String POD_START_SUM = "knotless_run_pod_start_seconds_sum";
  private static final String POD_START_COUNT = "knotless_run_pod_start_seconds_count";
  private static final Duration SETTLED = Duration.ofSeconds(5);
  private static final Duration MAX = Duration.ofMinutes(20);

  /** Where run pods go, and the RuntimeClass of others' code, as the chart names them. */
  static final String NAMESPACE = "knotless-runs";

  static final String RUNTIME_CLASS = "gvisor";

  /** The all-in-one's executor: docker, the local busybox image, others' code under runsc. */
  static final List<String> AIO_EXECUTOR =
      List.of(
          "--executor",
          "docker",
          "--image",
          LocalDocker.BUSYBOX,
          "--runtime",
          LocalDocker.SANDBOX_RUNTIME);

  /** Kept so the level set on it holds: the mock API server logs every request at INFO. */
  private static final java.util.logging.Logger MOCK_SERVER_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  /** What every measure works on: the shape, its pushed and idle repositories, how much to do. */
  private record Stage(
      LocalDistributed shape,
      KubeApiServer api,
      ServiceProcess writer,
      ServiceProcess scheduler,
      OwnerRepo pushed,
      Account owner,
      List<IdleRepos.Repo> idle,
      int pushes,
      int rings) {}

  /**
   * What one shape measured: per push its times, the PDS requests to running and to the end, the
   * scheduler's pod start and the pod's timeline; then the rings.
   */
  record Figured(
      PushTimer.Times times,
      double requestsPerPush,
      double requestsToEnd,
      Map<String, Long> byMethod,
      long[] podStart,
      PodTimeline timeline,
      long startNanos,
      Rings rings,
      int reconcilers) {}

  /** Every door rung at once: how long until every pass ended, and what they cost. */
  record Ring(int count, long wallNanos, double requestsPerPass, int failed) {}

  /** The same ring made a few times over. */
  record Rings(List<Ring> each) {
    long[] walls() {
      return each.stream().mapToLong(Ring::wallNanos).toArray();
    }

    double requestsPerPass() {
      return each.stream().mapToDouble(Ring::requestsPerPass).average().orElse(0);
    }

    int failed() {
      return each.stream().mapToInt(Ring::failed).sum();
    }
  }

  private DistributedBench() {}

  public static void main(String[] args) throws Exception {
    int pushes = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int count = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int replicas = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    int rings = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    // Both shapes run others' code under runsc: without it the comparison is of something else.
    LocalDocker.ensure();
    MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
    Path dir = Files.createTempDirectory("knotless-bench-distributed");
    say("logs and data in " + dir);
    String loadBefore = Figures.loadAverage();
    List<Figured> shapes = new ArrayList<>();
    TriggerBench.Pushes aioPushes;
    TriggerBench.Sweep aioSweep;
    try (KubeApiServer api = KubeApiServer.start();
        TestKubelet kubelet =
            TestKubelet.start(api, Map.of(RUNTIME_CLASS, LocalDocker.SANDBOX_RUNTIME), 0);
        LocalDistributed shape =
            LocalDistributed.start(LocalDistributed.projectRoot(), dir).withScheduler()) {
      // The all-in-one half first, on the same PDS, while no service runs beside it. One push
      // unmeasured, as the services get: the first run pays for the daemon's first container.
      say("all-in-one, docker under " + LocalDocker.SANDBOX_RUNTIME + ": " + pushes + " pushes");
      aioPushes =
          TriggerBench.pushToRunning(
              shape.pds(), dir.resolve("aio-push"), 1, pushes, Duration.ZERO, AIO_EXECUTOR);
      say("all-in-one: the idle sweep of " + count + " repositories");
      aioSweep =
          TriggerBench.idleSweep(shape.pds(), dir.resolve("aio-sweep"), count, Duration.ZERO);

      Account owner = shape.pds().createAccount("idle");
      List<IdleRepos.Repo> idle = IdleRepos.create(shape.pds().pdsUrl(), owner, count);
      for (IdleRepos.Repo r : idle) {
        shape.watch(owner.did(), r.key(), r.name());
      }
      OwnerRepo pushed = shape.ownerRepo("bench", PushTimer.FILES);
      int watched = count + 1;

      say("pods: starting the check-writer, a reconciler, the scheduler and the ingester");
      ServiceProcess writer = shape.startCheckWriter();
      List<ServiceProcess> reconcilers = new ArrayList<>();
      long s0 = System.nanoTime();
      reconcilers.add(shape.startReconciler());
      ServiceProcess scheduler =
          shape.startScheduler(
              api.url(),
              "bench-" + Long.toHexString(System.nanoTime()),
              NAMESPACE,
              RUNTIME_CLASS,
              LocalDocker.BUSYBOX,
              Map.of());
      // No sweep of the ingester's own during the measures.
      shape.startIngester(Map.of("knotless.ingester.sweep", "24h"));
      Stage stage = new Stage(shape, api, writer, scheduler, pushed, owner, idle, pushes, rings);
      settle(reconcilers, watched);
      shapes.add(measure(stage, reconcilers, System.nanoTime() - s0));
      for (int n = 2; n <= replicas; n++) {
        say("pods: adding reconciler " + n);
        s0 = System.nanoTime();
        reconcilers.add(shape.startReconciler());
        settle(reconcilers, watched);
        shapes.add(measure(stage, reconcilers, System.nanoTime() - s0));
      }
    }
    DistributedTable.print(count, aioPushes, aioSweep, shapes);
    System.out.println();
    System.out.println("load average before: " + loadBefore + "; after: " + Figures.loadAverage());
    System.out.println(
        "arguments: "
            + pushes
            + " "
            + count
            + " "
            + replicas
            + " "
            + rings
            + " (pushes,"
            + " repositories, replicas, rings)");
  }

  /** Times the pushes, then rings every idle door, with these reconcilers running. */
  private static Figured measure(Stage stage, List<ServiceProcess> reconcilers, long start)
      throws Exception {
    LocalDistributed shape = stage.shape();
    int pushes = stage.pushes();
    say("pods, " + reconcilers.size() + " reconciler(s): " + pushes + " pushes");
    List<ServiceProcess> callers = new ArrayList<>(reconcilers);
    callers.add(stage.writer());
    callers.add(stage.scheduler());
    ServiceProcess scheduler = stage.scheduler();
    // One untimed push first: the check-writer logs in at its first filing, a new replica has its
    // first run to queue, and the scheduler its first pod to make.
    PushTimer.run(
        stage.pushed(), shape.pds().pdsUrl(), shape.runner().did(), 1, PushTimer.Hooks.NONE);
    double[] requests = new double[3];
    double[] podStart = new double[2];
    List<Long> podStarts = new ArrayList<>();
    PodTimeline timeline = new PodTimeline(stage.api());
    Map<String, Double> before = new TreeMap<>();
    Map<String, Double> methods = new TreeMap<>();
    PushTimer.Times times =
        PushTimer.run(
            stage.pushed(),
            shape.pds().pdsUrl(),
            shape.runner().did(),
            pushes,
            new PushTimer.Hooks() {
              @Override
              public void beforePush() throws IOException {
                requests[0] = sum(callers, PDS_REQUESTS);
                before.clear();
                before.putAll(byMethod(callers));
                podStart[0] = scheduler.metric(POD_START_SUM);
                podStart[1] = scheduler.metric(POD_START_COUNT);
              }

              @Override
              public void pushed(long wroteNanos) {
                timeline.pushed(wroteNanos);
              }

              @Override
              public void atRunning() throws IOException {
                requests[1] += sum(callers, PDS_REQUESTS) - requests[0];
                byMethod(callers)
                    .forEach(
                        (m, c) -> methods.merge(m, c - before.getOrDefault(m, 0.0), Double::sum));
              }

              @Override
              public void afterEnd() throws IOException, InterruptedException {
                // The run's end is filed; let the scheduler's last queue writes go by.
                Thread.sleep(1000);
                requests[2] += sum(callers, PDS_REQUESTS) - requests[0];
                timeline.ended();
                // One pod a push: the timer's growth is that pod's start.
                if (scheduler.metric(POD_START_COUNT) - podStart[1] == 1) {
                  podStarts.add(Math.round((scheduler.metric(POD_START_SUM) - podStart[0]) * 1e9));
                }
              }
            });
    say(
        "pods, "
            + reconcilers.size()
            + " reconciler(s): ringing "
            + stage.idle().size()
            + " doors");
    List<Ring> each = new ArrayList<>();
    for (int i = 0; i < stage.rings(); i++) {
      each.add(ring(stage, reconcilers));
      say("  " + Figures.seconds(each.get(i).wallNanos()));
      Thread.sleep(2000);
    }
    Map<String, Long> perPush = new TreeMap<>();
    methods.forEach((m, c) -> perPush.put(m, Math.round(c / pushes)));
    perPush.values().removeIf(c -> c == 0);
    return new Figured(
        times,
        requests[1] / pushes,
        requests[2] / pushes,
        perPush,
        podStarts.stream().mapToLong(Long::longValue).toArray(),
        timeline,
        start,
        new Rings(each),
        reconcilers.size());
  }

  /**
   * Publishes one {@code sweep} doorbell per idle repository, as the ingester's sweep does, and
   * waits until the reconcilers have ended that many more passes.
   */
  private static Ring ring(Stage stage, List<ServiceProcess> reconcilers) throws Exception {
    List<IdleRepos.Repo> idle = stage.idle();
    double passes0 = sum(reconcilers, PASSES);
    double ok0 = sum(reconcilers, PASSES_OK);
    double requests0 = sum(reconcilers, PDS_REQUESTS);
    long t0 = System.nanoTime();
    sweep(stage.shape(), stage.owner().did(), idle);
    long deadline = t0 + MAX.toNanos();
    double passes = passes0;
    while (passes - passes0 < idle.size()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "only " + (passes - passes0) + " of " + idle.size() + " passes in " + MAX);
      }
      Thread.sleep(50);
      passes = sum(reconcilers, PASSES);
    }
    long wall = System.nanoTime() - t0;
    double done = passes - passes0;
    double requests = sum(reconcilers, PDS_REQUESTS) - requests0;
    int failed = (int) Math.round(done - (sum(reconcilers, PASSES_OK) - ok0));
    return new Ring(idle.size(), wall, requests / done, failed);
  }

  /** Publishes one {@code sweep} doorbell per repository, as the ingester's sweep does. */
  static void sweep(LocalDistributed shape, String ownerDid, List<IdleRepos.Repo> repos) {
    SweepRings.ring(shape, ownerDid, repos.stream().map(IdleRepos.Repo::key).toList());
  }

  /**
   * Waits until every reconciler has passed something, they have {@code watched} passes between
   * them, and no pass has ended for {@link #SETTLED}: the passes of the start (every door rung as
   * partitions are assigned and again as the ingester connects) are over.
   */
  private static void settle(List<ServiceProcess> reconcilers, int watched) throws Exception {
    long deadline = System.nanoTime() + MAX.toNanos();
    double last = -1;
    long since = System.nanoTime();
    while (true) {
      double now = sum(reconcilers, PASSES);
      boolean everyOne = true;
      for (ServiceProcess r : reconcilers) {
        everyOne &= r.metric(PASSES) > 0;
      }
      if (now != last) {
        last = now;
        since = System.nanoTime();
      } else if (everyOne && now >= watched && System.nanoTime() - since > SETTLED.toNanos()) {
        say("settled after " + (long) now + " passes");
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the reconcilers did not settle in " + MAX);
      }
      Thread.sleep(500);
    }
  }

  /** The PDS requests the services have counted, by method, summed over the services. */
  private static Map<String, Double> byMethod(List<ServiceProcess> services) throws IOException {
    Map<String, Double> out = new TreeMap<>();
    for (ServiceProcess s : services) {
      for (String line : s.metrics().split("\n")) {
        int at = line.indexOf("method=\"");
        if (line.startsWith(PDS_REQUESTS + "{") && at > 0) {
          String method = line.substring(at + 8, line.indexOf('"', at + 8));
          double value = dev.knotless.testing.distributed.ServiceProcess.sampleValue(line);
          out.merge(Figures.shortName(method), value, Double::sum);
        }
      }
    }
    return out;
  }

  static double sum(List<ServiceProcess> services, String prefix) throws IOException {
    double sum = 0;
    for (ServiceProcess s : services) {
      sum += s.metric(prefix);
    }
    return sum;
  }

  private static void say(String what) {
    System.out.println("==> " + what);
  }
}
