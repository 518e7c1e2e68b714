package dev.knotless.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.cache.CacheFile;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.engine.Runner;
import dev.knotless.runner.pass.PassTrace;
import dev.knotless.storage.StorageCache;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import dev.knotless.testing.infra.IdleRepos;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PassCosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How fast and how cheaply the all-in-one runner hears of a push, over the local reference PDS: the
 * time from a ref write to the check filed queued and then running, with the PDS requests and round
 * trips the runner made on the way; and what one idle sweep of many watched repositories costs. The
 * runner's own HTTP goes through a {@link CountingProxy}; the firehose goes to the PDS directly.
 * Each push is traced stage by stage ({@link TriggerTrace}) beside the PDS floor of its path.
 * Prints the traces and a table. Run: {@code bin/bench Trigger [pushes] [repos (0: no sweep)]}.
 */
public final class TriggerBench {
  private TriggerBench() {}

  /**
   * The push figures: times, the PDS requests and round trips per push up to running, and the
   * requests per push in all, to the run's end and its last write.
   */
  record Pushes(
      PushTimer.Times times,
      double requests,
      double trips,
      Map<String, Integer> byMethod,
      TriggerTrace trace,
      double requestsToEnd) {}

  /** The executor the bench's runners use unless told otherwise: steps as the bench's user. */
  static final List<String> SHELL = List.of("--executor", "shell");

  /** One idle sweep of {@code count} repositories. */
  record Sweep(
      int count,
      long wallNanos,
      int requests,
      int trips,
      Map<String, Integer> byMethod,
      long start) {}

  public static void main(String[] args) throws Exception {
    int pushes = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int repos = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int warm = args.length > 2 ? Integer.parseInt(args[2]) : 0;
    Path tmp = Files.createTempDirectory("knotless-bench");
    List<String[]> rows = new ArrayList<>();
    List<Runnable> traces = new ArrayList<>();
    String loadBefore = Figures.loadAverage();
    try (PdsInstance pds = PdsInstance.start(PdsOptions.defaults())) {
      for (Duration latency : List.of(Duration.ZERO, Duration.ofMillis(50))) {
        Pushes p =
            pushToRunning(pds, tmp.resolve("push-" + latency.toMillis()), warm, pushes, latency);
        String lat =
            "(proxy latency "
                + latency.toMillis()
                + " ms"
                + (warm > 0 ? ", after " + warm + " pushes unmeasured" : "")
                + ")";
        rows.add(
            new String[] {
              "ref write -> check queued " + lat,
              Figures.median(p.times().queued()) + " (med)",
              "",
              "",
              ""
            });
        rows.add(
            new String[] {
              "ref write -> check running " + lat,
              Figures.median(p.times().running()) + " (med)",
              String.format("%.1f", p.requests()),
              String.format("%.1f", p.trips()),
              p.byMethod().toString()
            });
        TriggerTrace t = p.trace();
        long floor = t.medianFloor();
        long fromFrame = t.median(PassTrace.Stage.FRAME, PassTrace.Stage.RUNNING);
        rows.add(
            new String[] {
              "  event delivery (ref write -> frame) " + lat,
              t.median(null, PassTrace.Stage.FRAME) + " ms (med)",
              "",
              "",
              "the PDS's firehose, before the runner hears of the push"
            });
        rows.add(
            new String[] {
              "  frame -> check filed running " + lat,
              fromFrame + " ms (med)",
              "",
              "",
              String.format(
                  "PDS floor %d ms (med): %.2fx the floor", floor, (double) fromFrame / floor)
            });
        traces.add(() -> t.print(lat));
      }
      if (repos > 0) {
        Sweep s = idleSweep(pds, tmp.resolve("sweep"), repos, Duration.ofMillis(50));
        rows.add(
            new String[] {
              "idle sweep of " + repos + " repos at 50 ms (per repo)",
              Figures.ms(s.wallNanos()),
              String.format("%.2f", (double) s.requests() / repos),
              String.format("%.2f", (double) s.trips() / repos),
              "spec: 3 requests in 1 round trip; "
                  + s.byMethod()
                  + " in all; start and first passes took "
                  + Figures.ms(s.start())
            });
      }
    }
    traces.forEach(Runnable::run);
    System.out.println();
    System.out.println("load average before: " + loadBefore + "; after: " + Figures.loadAverage());
    System.out.printf(
        "%-44s %12s %9s %11s  %s%n", "measure", "time", "requests", "round trips", "by method");
    for (String[] r : rows) {
      System.out.printf("%-44s %12s %9s %11s  %s%n", (Object[]) r);
    }
  }

  /**
   * Pushes {@code warm} commits unmeasured, so the runner's code is past the JIT's first passes as
   * a busy runner's is, then {@code n} one after another, timing each from the ref write.
   */
  static Pushes pushToRunning(PdsInstance pds, Path dir, int warm, int n, Duration latency)
      throws Exception {
    return pushToRunning(pds, dir, warm, n, latency, SHELL);
  }

  /** As above, the runner's executor chosen by {@code executor}, its flags. */
  static Pushes pushToRunning(
      PdsInstance pds, Path dir, int warm, int n, Duration latency, List<String> executor)
      throws Exception {
    Account owner = pds.createAccount("bo");
    Account runnerAccount = pds.createAccount("br");
    OwnerRepo repo = new OwnerRepo(owner, pds.pdsUrl(), "bench", dir.resolve("owner"));
    repo.commit(PushTimer.FILES);
    repo.push("main");

    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl(), latency)) {
      Map<String, String> env = env(pds, runnerAccount, dir);
      routeThrough(env, proxy, owner, runnerAccount);
      Runner runner = start(env, dir, List.of(owner.handle() + "/bench"), 600, executor);
      TriggerTrace trace = new TriggerTrace();
      runner.tracing(trace);
      try {
        quiet(proxy);
        if (warm > 0) {
          PushTimer.run(repo, pds.pdsUrl(), runnerAccount.did(), warm, PushTimer.Hooks.NONE);
          quiet(proxy);
        }
        int[] counted = new int[3];
        Map<String, Integer> methods = new TreeMap<>();
        PushTimer.Times times =
            PushTimer.run(
                repo,
                pds.pdsUrl(),
                runnerAccount.did(),
                n,
                new PushTimer.Hooks() {
                  @Override
                  public void beforePush() {
                    proxy.reset();
                    trace.clear();
                  }

                  @Override
                  public void pushed(long wroteNanos) {
                    trace.pushed(wroteNanos);
                  }

                  @Override
                  public void atRunning() throws java.io.IOException {
                    try {
                      trace.atRunning(proxy);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                      throw new java.io.InterruptedIOException("interrupted");
                    }
                    counted[0] += proxy.requests();
                    counted[1] += proxy.roundTrips();
                    proxy
                        .byMethod()
                        .forEach((m, c) -> methods.merge(Figures.shortName(m), c, Integer::sum));
                  }

                  @Override
                  public void afterEnd() throws InterruptedException {
                    quiet(proxy);
                    counted[2] += proxy.requests();
                  }
                });
        Map<String, Integer> perPush = new TreeMap<>();
        methods.forEach((m, c) -> perPush.put(m, Math.round((float) c / n)));
        return new Pushes(
            times,
            (double) counted[0] / n,
            (double) counted[1] / n,
            perPush,
            trace,
            (double) counted[2] / n);
      } finally {
        runner.stop();
      }
    }
  }

  /**
   * Watches {@code count} repositories, lets the first passes settle, and measures one sweep with
   * {@code latency} added to each request, its round trips counted per repository ({@link
   * PassCosts}): they mean something only when the latency makes reads sent at once overlap.
   */
  static Sweep idleSweep(PdsInstance pds, Path dir, int count, Duration latency) throws Exception {
    Account owner = pds.createAccount("so");
    Account runnerAccount = pds.createAccount("sr");
    List<IdleRepos.Repo> repos = IdleRepos.create(pds.pdsUrl(), owner, count);
    List<String> labels = IdleRepos.labels(owner, repos);
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      Map<String, String> env = env(pds, runnerAccount, dir);
      routeThrough(env, proxy, owner, runnerAccount);
      int sweepSeconds = 60;
      long s0 = System.nanoTime();
      Runner runner = start(env, dir, labels, sweepSeconds, SHELL);
      try {
        quiet(proxy);
        long settled = System.nanoTime();
        proxy.latency(latency);
        proxy.reset();
        // The next sweep rings every door sweepSeconds after the sweeping started.
        while (proxy.requests() == 0) {
          Thread.sleep(20);
          if (System.nanoTime() - settled > Duration.ofSeconds(sweepSeconds * 2L).toNanos()) {
            throw new IllegalStateException("no sweep came");
          }
        }
        long first = System.nanoTime();
        PassCosts costs = IdleBench.awaitSweep(proxy, owner, repos);
        long last = System.nanoTime() - Duration.ofSeconds(1).toNanos();
        return new Sweep(
            count, last - first, costs.requests(), costs.trips(), costs.byMethod(), settled - s0);
      } finally {
        runner.stop();
      }
    }
  }

  private static Runner start(
      Map<String, String> env, Path dir, List<String> repos, int sweep, List<String> executor)
      throws Exception {
    List<String> args = new ArrayList<>(executor);
    args.addAll(
        List.of(
            "--state", dir.resolve("state.json").toString(),
            "--work", dir.resolve("runs").toString(),
            "--firehose", "ws://127.0.0.1:" + env.get("BENCH_PDS_PORT"),
            "--sweep", Integer.toString(sweep)));
    args.addAll(repos);
    return Runner.start(RunnerOptions.parse(args, env).orElseThrow(), env);
  }

  private static Map<String, String> env(PdsInstance pds, Account runner, Path dir) {
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", runner.handle());
    env.put("KNOTLESS_PASSWORD", runner.password());
    env.put("KNOTLESS_CACHE_DIR", dir.resolve("cache").toString());
    env.put("PATH", System.getenv("PATH"));
    env.put("HOME", dir.toString());
    env.put("BENCH_PDS_PORT", Integer.toString(pds.pdsUrl().getPort()));
    return env;
  }

  /**
   * Resolves the accounts into the runner's identity cache with the proxy as their PDS, so every
   * request the runner makes, its own writes and the owner's reads, is counted.
   */
  private static void routeThrough(
      Map<String, String> env, CountingProxy proxy, Account... accounts) throws Exception {
    LocalCache cache = StorageCache.fromEnvironment(env, Clock.systemUTC()).local();
    IdentityResolver identities = IdentityResolver.fromEnvironment(env, cache);
    for (Account a : accounts) {
      identities.resolve(a.handle());
      ObjectNode v = JsonNodeFactory.instance.objectNode();
      v.put("did", a.did()).put("pds", proxy.url().toString());
      cache.put(CacheFile.IDENTITY, a.handle(), v);
      cache.put(CacheFile.IDENTITY, a.did(), v);
    }
  }

  /** Waits until the proxy has seen no request for a second; returns when the last one came. */
  private static long quiet(CountingProxy proxy) throws InterruptedException {
    int before = -1;
    long lastChange = System.nanoTime();
    while (true) {
      int now = proxy.requests();
      if (now != before) {
        before = now;
        lastChange = System.nanoTime();
      } else if (System.nanoTime() - lastChange > Duration.ofSeconds(1).toNanos()) {
        return lastChange;
      }
      Thread.sleep(10);
    }
  }
}
