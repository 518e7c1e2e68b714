package dev.knotless.bench;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import dev.knotless.testing.infra.IdleRepos;
import dev.knotless.testing.infra.PassCosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The packaged all-in-one ({@code knotless-run}, its own JVM as {@code bin/knotless-run} starts it)
 * watching many idle repositories on the local reference PDS, every request counted by a {@link
 * CountingProxy}: from process start to every first pass done, beside the PDS's floor for the reads
 * a start needs; its resident memory once they are done; and one idle sweep's requests and round
 * trips per repository beside the spec's cost (one round trip of three reads). Run: {@code
 * bin/bench Idle [repos (1000)] [sweep latency ms (50)]}. The distributed shape is {@link
 * IdleDistributedBench}.
 */
public final class IdleBench {
  /** The reads of one idle pass: the repo record, its refs, the owner's rerun requests. */
  static final int SPEC_REQUESTS = 3;

  static final int SPEC_TRIPS = 1;

  /** How many repositories the floor's reader reads at once: as many as the start reads. */
  static final int FLOOR_AT_ONCE = 8;

  private IdleBench() {}

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    Duration latency = Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1]) : 50);
    Path dir = Files.createTempDirectory("knotless-bench-idle");
    say("logs and data in " + dir);
    String loadBefore = Figures.loadAverage();
    List<String[]> rows = new ArrayList<>();
    String loadAfterStart;
    try (PdsInstance pds = PdsInstance.start(PdsOptions.defaults());
        CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      Account owner = pds.createAccount("idle");
      Account runner = pds.createAccount("idlerun");
      long c0 = System.nanoTime();
      List<IdleRepos.Repo> repos = IdleRepos.create(pds.pdsUrl(), owner, count);
      say(count + " repositories made in " + Figures.seconds(System.nanoTime() - c0));
      long floor = floor(proxy, owner, repos);
      say("floor: " + Figures.seconds(floor));
      IdleRepos.routeThrough(dir.resolve("cache"), proxy, owner, runner);
      proxy.reset();
      long t0 = System.nanoTime();
      Process process = start(pds, runner, dir, IdleRepos.labels(owner, repos));
      try {
        awaitFirstPasses(process, dir.resolve("state.json"), owner, repos);
        long start = System.nanoTime() - t0;
        loadAfterStart = Figures.loadAverage();
        PassCosts first = PassCosts.of(proxy.spans(), owner.did(), repos);
        say("every first pass done in " + Figures.seconds(start) + ": " + first);
        proxy.awaitQuiet(java.time.Duration.ofSeconds(1));
        long rss = Memory.rss(process.pid());
        rows.add(
            row(
                "start to every first pass",
                Figures.seconds(start),
                Figures.seconds(floor),
                String.format("%.2fx (goal 2x)", (double) start / floor)));
        rows.add(
            row(
                "  its requests / round trips per repository",
                String.format("%.2f / %.2f", first.requestsPerRepo(), first.tripsPerRepo()),
                "2 round trips",
                first.byMethod().toString()));
        rows.add(
            row(
                "resident memory, " + count + " repositories idle",
                Memory.mib(rss),
                "",
                "goal under 200 MiB; heap " + Memory.heap(process.pid())));
        proxy.latency(latency);
        proxy.reset();
        PassCosts sweep = awaitSweep(proxy, owner, repos);
        rows.add(
            row(
                "idle sweep: requests per repository",
                String.format("%.2f", sweep.requestsPerRepo()),
                Integer.toString(SPEC_REQUESTS),
                sweep.byMethod() + ", " + sweep.other().size() + " to no repository"));
        rows.add(
            row(
                "idle sweep: round trips per repository",
                String.format("%.2f (most %d)", sweep.tripsPerRepo(), sweep.mostTrips()),
                Integer.toString(SPEC_TRIPS),
                "at " + latency.toMillis() + " ms a request"));
        rows.add(
            row(
                "resident memory after the sweep",
                Memory.mib(Memory.rss(process.pid())),
                "",
                "peak " + Memory.mib(Memory.peak(process.pid()))));
      } finally {
        process.destroy();
        process.waitFor();
      }
    }
    System.out.println();
    System.out.println(
        "load average before: "
            + loadBefore
            + "; after the start: "
            + loadAfterStart
            + "; at the end: "
            + Figures.loadAverage());
    System.out.printf("%-46s %16s %14s  %s%n", "measure", "figure", "floor / spec", "note");
    for (String[] r : rows) {
      System.out.printf("%-46s %16s %14s  %s%n", (Object[]) r);
    }
    System.out.println(
        "arguments: " + count + " " + latency.toMillis() + " (repositories, sweep ms)");
  }

  private static String[] row(String measure, String figure, String floor, String note) {
    return new String[] {measure, figure, floor, note};
  }

  /**
   * The PDS's floor for a start's reads: a bare client reading, for every repository, its record
   * (to learn its key, which a runner started afresh does not have) and then its refs and the
   * owner's rerun requests at once, {@link #FLOOR_AT_ONCE} repositories at a time, through the same
   * proxy.
   */
  static long floor(CountingProxy proxy, Account owner, List<IdleRepos.Repo> repos)
      throws Exception {
    XrpcClient client = XrpcClient.create(proxy.url());
    ExecutorService pool = Executors.newFixedThreadPool(FLOOR_AT_ONCE);
    ExecutorService beside = Executors.newCachedThreadPool();
    try {
      long t0 = System.nanoTime();
      List<Future<?>> reads = new ArrayList<>();
      for (IdleRepos.Repo r : repos) {
        reads.add(
            pool.submit(
                () -> {
                  client.getRecord(owner.did(), "dev.knotless.repo", r.name());
                  CompletableFuture<?> refs =
                      CompletableFuture.runAsync(
                          () -> list(client, owner, "dev.knotless.ref", r.key()), beside);
                  list(client, owner, "dev.knotless.rerun", r.key());
                  refs.join();
                  return null;
                }));
      }
      for (Future<?> f : reads) {
        f.get();
      }
      return System.nanoTime() - t0;
    } finally {
      pool.shutdownNow();
      beside.shutdownNow();
    }
  }

  private static void list(XrpcClient client, Account owner, String collection, String key) {
    try {
      client.listRecords(owner.did(), collection, 100, key + "/", false);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Starts the packaged all-in-one with {@code bin/knotless-run}, its JVM flags as a user gets them
   * (the script ends in {@code exec java}, so the process is the JVM), watching {@code labels}.
   */
  static Process start(PdsInstance pds, Account runner, Path dir, List<String> labels)
      throws IOException {
    Path root = Path.of(System.getProperty("knotless.repo.root", ".")).toAbsolutePath();
    Path jar = root.resolve("services/all-in-one/target/quarkus-app/quarkus-run.jar");
    if (!Files.exists(jar)) {
      throw new IllegalStateException(
          jar + " is not built: ./mvnw -B -q -DskipTests package -pl services/all-in-one -am");
    }
    List<String> cmd = new ArrayList<>(List.of(root.resolve("bin/knotless-run").toString()));
    cmd.addAll(
        List.of(
            "--executor",
            "shell",
            "--state",
            dir.resolve("state.json").toString(),
            "--work",
            dir.resolve("work").toString(),
            "--firehose",
            "ws://127.0.0.1:" + pds.pdsUrl().getPort(),
            "--sweep",
            "30"));
    cmd.addAll(labels);
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", runner.handle());
    env.put("KNOTLESS_PASSWORD", runner.password());
    env.put("KNOTLESS_CACHE_DIR", dir.resolve("cache").toString());
    env.put("KNOTLESS_METRICS_PORT", "0");
    env.put("HOME", dir.toString());
    // The JDK the bench runs on, first, as bin/knotless-run runs the java it finds.
    env.put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(dir.resolve("knotless-run.log").toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    return pb.start();
  }

  /** Waits until the state file knows every repository: each first pass took its baseline. */
  private static void awaitFirstPasses(
      Process process, Path state, Account owner, List<IdleRepos.Repo> repos) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(20).toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("knotless-run exited with " + process.exitValue());
      }
      if (Files.exists(state) && known(state, owner, repos) == repos.size()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the first passes took more than 20 minutes");
      }
      Thread.sleep(50);
    }
  }

  private static int known(Path state, Account owner, List<IdleRepos.Repo> repos) {
    JsonStateStore s = new JsonStateStore(state);
    int n = 0;
    for (IdleRepos.Repo r : repos) {
      if (s.load(owner.did() + "/" + r.key()).isPresent()) {
        n++;
      }
    }
    return n;
  }

  /** Waits for the next sweep to read every repository and end; what it cost. */
  static PassCosts awaitSweep(CountingProxy proxy, Account owner, List<IdleRepos.Repo> repos)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (PassCosts.of(proxy.spans(), owner.did(), repos).read() < repos.size()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "no sweep read every repository: " + PassCosts.of(proxy.spans(), owner.did(), repos));
      }
      Thread.sleep(200);
    }
    proxy.awaitQuiet(java.time.Duration.ofSeconds(1));
    return PassCosts.of(proxy.spans(), owner.did(), repos);
  }

  private static void say(String what) {
    System.out.println("==> " + what);
  }
}
