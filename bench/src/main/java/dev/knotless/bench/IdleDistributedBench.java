package dev.knotless.bench;

import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.distributed.LocalDistributed;
import dev.knotless.testing.distributed.ServiceProcess;
import dev.knotless.testing.infra.IdleRepos;
import dev.knotless.testing.infra.PassCosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The hosted shape watching many idle repositories: queue-mode reconcilers (their own JVMs, as the
 * harness starts them) and the ingester, on one machine, every PDS request of the reconcilers
 * counted by a {@link CountingProxy}. Prints how long after the services were ready every first
 * pass was done (goal 60 s), what a full sweep then cost (goal: the repositories times the idle
 * pass's three reads), and each reconciler's heap and resident memory (goal 512 MiB each). Run:
 * {@code bin/bench IdleDistributed [repos (10000)] [reconcilers (2)]}.
 */
public final class IdleDistributedBench {
  private IdleDistributedBench() {}

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int replicas = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    Path dir = Files.createTempDirectory("knotless-bench-idle-distributed");
    say("logs and data in " + dir);
    String loadBefore = Figures.loadAverage();
    List<String[]> rows = new ArrayList<>();
    String loadAtReady;
    String loadAtFirst;
    try (LocalDistributed shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
        CountingProxy proxy = CountingProxy.start(shape.pds().pdsUrl())) {
      Account owner = shape.pds().createAccount("idle");
      long c0 = System.nanoTime();
      List<IdleRepos.Repo> repos = IdleRepos.create(shape.pds().pdsUrl(), owner, count);
      say(count + " repositories made in " + Figures.seconds(System.nanoTime() - c0));
      for (IdleRepos.Repo r : repos) {
        shape.watch(owner.did(), r.key(), r.name());
      }
      List<ServiceProcess> reconcilers = new ArrayList<>();
      for (int i = 1; i <= replicas; i++) {
        IdleRepos.routeThrough(
            dir.resolve("reconciler-" + i + "/cache"), proxy, owner, shape.runner());
      }
      long s0 = System.nanoTime();
      Map<String, Double> cpuAtStart = CpuSeconds.now(shape.postgres().port());
      for (int i = 1; i <= replicas; i++) {
        reconcilers.add(shape.startReconciler());
      }
      // The ingester's own sweep stays out of the way; the measured sweep is rung below.
      shape.startIngester(Map.of("knotless.ingester.sweep", "24h"));
      long ready = System.nanoTime();
      Map<String, Double> cpuAtReady = CpuSeconds.now(shape.postgres().port());
      loadAtReady = Figures.loadAverage();
      say("services ready in " + Figures.seconds(ready - s0));
      awaitPassed(proxy, owner, repos, reconcilers);
      long firstPasses = System.nanoTime() - ready;
      Map<String, Double> cpuAtFirst = CpuSeconds.now(shape.postgres().port());
      loadAtFirst = Figures.loadAverage();
      say("CPU from start to ready: " + CpuSeconds.between(cpuAtStart, cpuAtReady));
      say("CPU from ready to every first pass: " + CpuSeconds.between(cpuAtReady, cpuAtFirst));
      say(
          "passes until then: "
              + DistributedBench.sum(reconcilers, DistributedBench.PASSES)
              + " for "
              + count
              + " repositories");
      PassCosts first = PassCosts.of(proxy.spans(), owner.did(), repos);
      say("every first pass done " + Figures.seconds(firstPasses) + " after ready: " + first);
      proxy.awaitQuiet(java.time.Duration.ofSeconds(1));
      rows.add(
          row(
              "ready to every first pass done",
              Figures.seconds(firstPasses),
              "60 s",
              String.format(
                  "%.2f requests a repository until then, %s",
                  (double) first.requests() / count, first.byMethod())));
      memory(rows, reconcilers, "after the first passes");

      proxy.reset();
      double passes0 = DistributedBench.sum(reconcilers, DistributedBench.PASSES);
      double ok0 = DistributedBench.sum(reconcilers, DistributedBench.PASSES_OK);
      long w0 = System.nanoTime();
      DistributedBench.sweep(shape, owner.did(), repos);
      awaitPasses(proxy, reconcilers, passes0 + count, count * IdleBench.SPEC_REQUESTS);
      long wall = System.nanoTime() - w0;
      say(
          "CPU from the first passes' end to the sweep's end: "
              + CpuSeconds.between(cpuAtFirst, CpuSeconds.now(shape.postgres().port())));
      proxy.awaitQuiet(java.time.Duration.ofSeconds(1));
      PassCosts sweep = PassCosts.of(proxy.spans(), owner.did(), repos);
      double passes = DistributedBench.sum(reconcilers, DistributedBench.PASSES) - passes0;
      double ok = DistributedBench.sum(reconcilers, DistributedBench.PASSES_OK) - ok0;
      rows.add(
          row(
              "full sweep: PDS requests",
              Integer.toString(sweep.requests()),
              Integer.toString(count * IdleBench.SPEC_REQUESTS),
              String.format(
                  "%.2f a repository, %d to no repository; %s",
                  sweep.requestsPerRepo(), sweep.other().size(), sweep.byMethod())));
      rows.add(
          row(
              "full sweep: wall time",
              Figures.seconds(wall),
              "",
              String.format(
                  "%.0f passes, %.0f failed; %s passes/s",
                  passes, passes - ok, Figures.rate((int) passes, wall))));
      memory(rows, reconcilers, "after the sweep");
    }
    System.out.println();
    System.out.println(
        "load average before: "
            + loadBefore
            + "; at ready: "
            + loadAtReady
            + "; at the first passes' end: "
            + loadAtFirst
            + "; at the end: "
            + Figures.loadAverage());
    System.out.printf("%-40s %16s %10s  %s%n", "measure", "figure", "goal", "note");
    for (String[] r : rows) {
      System.out.printf("%-40s %16s %10s  %s%n", (Object[]) r);
    }
    System.out.println("arguments: " + count + " " + replicas + " (repositories, reconcilers)");
  }

  private static void memory(List<String[]> rows, List<ServiceProcess> reconcilers, String when)
      throws Exception {
    for (int i = 0; i < reconcilers.size(); i++) {
      ServiceProcess r = reconcilers.get(i);
      rows.add(
          row(
              "reconciler " + (i + 1) + " resident, " + when,
              Memory.mib(Memory.rss(r.pid())),
              "512 MiB",
              "heap "
                  + Memory.heap(r.pid())
                  + "; peak resident "
                  + Memory.mib(Memory.peak(r.pid()))));
    }
  }

  /** Waits until every repository's pass has read the owner's rerun requests, and passes ended. */
  private static void awaitPassed(
      CountingProxy proxy,
      Account owner,
      List<IdleRepos.Repo> repos,
      List<ServiceProcess> reconcilers)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    int looks = 0;
    while (true) {
      // The proxy's own count first, then the counters, then the spans: each look costlier than the
      // one before, on the same two cores as what it measures. A scrape of a reconciler's metrics
      // costs it milliseconds of CPU, so none is made before every pass can have read its reruns.
      // (Every 5 s regardless, for passes that failed before their reads.)
      if ((proxy.requests() >= repos.size() * IdleBench.SPEC_REQUESTS || ++looks % 10 == 0)
          && DistributedBench.sum(reconcilers, DistributedBench.PASSES) >= repos.size()) {
        PassCosts now = PassCosts.of(proxy.spans(), owner.did(), repos);
        int reruns = now.reposByMethod().getOrDefault("listRecords dev.knotless.rerun", 0);
        if (now.read() == repos.size() && reruns >= repos.size()) {
          return;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the first passes took more than 30 minutes: "
                + PassCosts.of(proxy.spans(), owner.did(), repos));
      }
      Thread.sleep(500);
    }
  }

  /**
   * Waits until the reconcilers' pass counters reach {@code until}, scraping them only once the
   * proxy has seen the {@code requests} those passes make (or every 5 s, for passes that failed
   * before their reads).
   */
  private static void awaitPasses(
      CountingProxy proxy, List<ServiceProcess> reconcilers, double until, int requests)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    int looks = 0;
    while ((proxy.requests() < requests && ++looks % 25 != 0)
        || DistributedBench.sum(reconcilers, DistributedBench.PASSES) < until) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the sweep took more than 30 minutes");
      }
      Thread.sleep(200);
    }
  }

  private static String[] row(String measure, String figure, String goal, String note) {
    return new String[] {measure, figure, goal, note};
  }

  private static void say(String what) {
    System.out.println("==> " + what);
  }
}
