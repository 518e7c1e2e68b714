package dev.knotless.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.cache.CacheFile;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.engine.Runner;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Settings;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.Pusher;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
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
 * Prints a table. Run: {@code bin/bench Trigger [pushes] [repos]}.
 */
public final class TriggerBench {
  private static final String WORKFLOW = "on: {push: {}}\nsteps: [{name: s, run: 'true'}]\n";

  private TriggerBench() {}

  public static void main(String[] args) throws Exception {
    int pushes = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int repos = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    Path tmp = Files.createTempDirectory("knotless-bench");
    List<String[]> rows = new ArrayList<>();
    try (PdsInstance pds = PdsInstance.start(PdsOptions.defaults())) {
      for (Duration latency : List.of(Duration.ZERO, Duration.ofMillis(50))) {
        rows.addAll(pushToRunning(pds, tmp.resolve("push-" + latency.toMillis()), pushes, latency));
      }
      rows.add(idleSweep(pds, tmp.resolve("sweep"), repos));
    }
    System.out.printf(
        "%-44s %12s %9s %11s  %s%n", "measure", "time", "requests", "round trips", "by method");
    for (String[] r : rows) {
      System.out.printf("%-44s %12s %9s %11s  %s%n", (Object[]) r);
    }
  }

  /** Pushes {@code n} commits one after another and times each from the ref write. */
  static List<String[]> pushToRunning(PdsInstance pds, Path dir, int n, Duration latency)
      throws Exception {
    Account owner = pds.createAccount("bo");
    Account runnerAccount = pds.createAccount("br");
    XrpcClient ownerClient = XrpcClient.create(pds.pdsUrl());
    ownerClient.login(owner.handle(), owner.password());
    RepoAddress address = new RepoAddress(owner.did(), owner.handle(), pds.pdsUrl(), "bench");
    Path work = dir.resolve("work");
    Files.createDirectories(work);
    git(work, "init", "-q", "-b", "main");
    Pusher pusher =
        new Pusher(
            ownerClient,
            StorageCache.at(dir.resolve("owner-cache"), Clock.systemUTC()),
            Clock.systemUTC(),
            Settings.defaults().claimGrace());
    Files.createDirectories(work.resolve(".knotless/workflows"));
    Files.writeString(work.resolve(".knotless/workflows/ci.yml"), WORKFLOW);
    String sha = commit(work, "0");
    pusher.push(
        address,
        Git.at(work.resolve(".git")),
        List.of(new RefUpdate("refs/heads/main", sha, true)));
    String key =
        ownerClient
            .getRecord(owner.did(), "dev.knotless.repo", "bench")
            .value()
            .path("key")
            .asText();

    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl(), latency)) {
      Map<String, String> env = env(pds, runnerAccount, dir);
      routeThrough(env, proxy, owner, runnerAccount);
      Runner runner = start(env, dir, List.of(owner.handle() + "/bench"), 600);
      try {
        quiet(proxy);
        long[] queued = new long[n];
        long[] running = new long[n];
        int requests = 0;
        int trips = 0;
        Map<String, Integer> methods = new TreeMap<>();
        XrpcClient reader = XrpcClient.create(pds.pdsUrl());
        for (int i = 0; i < n; i++) {
          sha = commit(work, Integer.toString(i + 1));
          String rkey = CheckKeys.push(owner.did(), key, "refs/heads/main", sha, "ci");
          proxy.reset();
          long t0 = System.nanoTime();
          pusher.push(
              address,
              Git.at(work.resolve(".git")),
              List.of(new RefUpdate("refs/heads/main", sha, true)));
          long wrote = System.nanoTime();
          CheckStatus seen = null;
          while (seen == null || !seen.ended()) {
            CheckStatus s = status(reader, runnerAccount.did(), rkey);
            if (s != null && queued[i] == 0) {
              queued[i] = System.nanoTime() - wrote;
            }
            if (s != null && s != CheckStatus.QUEUED && running[i] == 0) {
              running[i] = System.nanoTime() - wrote;
              requests += proxy.requests();
              trips += proxy.roundTrips();
              proxy.byMethod().forEach((m, c) -> methods.merge(shortName(m), c, Integer::sum));
            }
            seen = s;
            if (System.nanoTime() - t0 > Duration.ofSeconds(60).toNanos()) {
              throw new IllegalStateException("push " + i + " was not run within 60 s");
            }
            Thread.sleep(10);
          }
          quiet(proxy);
        }
        String lat = "(proxy latency " + latency.toMillis() + " ms)";
        Map<String, Integer> perPush = new TreeMap<>();
        methods.forEach((m, c) -> perPush.put(m, Math.round((float) c / n)));
        return List.of(
            new String[] {"ref write -> check queued " + lat, median(queued), "", "", ""},
            new String[] {
              "ref write -> check running " + lat,
              median(running),
              String.format("%.1f", (double) requests / n),
              String.format("%.1f", (double) trips / n),
              perPush.toString()
            });
      } finally {
        runner.stop();
      }
    }
  }

  /** Watches {@code count} repositories, lets the first passes settle, and measures one sweep. */
  static String[] idleSweep(PdsInstance pds, Path dir, int count) throws Exception {
    Account owner = pds.createAccount("so");
    Account runnerAccount = pds.createAccount("sr");
    XrpcClient ownerClient = XrpcClient.create(pds.pdsUrl());
    ownerClient.login(owner.handle(), owner.password());
    List<String> labels = new ArrayList<>();
    List<Write> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String name = String.format("r%04d", i);
      ObjectNode v = JsonNodeFactory.instance.objectNode();
      v.put("key", Tid.next());
      v.put("defaultBranch", "main");
      v.put("createdAt", "2026-11-29T10:00:00.000Z");
      batch.add(Write.create("dev.knotless.repo", name, v));
      labels.add(owner.did() + "/" + name);
      if (batch.size() == 200 || i == count - 1) {
        ownerClient.applyWrites(owner.did(), batch);
        batch = new ArrayList<>();
      }
    }
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      Map<String, String> env = env(pds, runnerAccount, dir);
      routeThrough(env, proxy, owner, runnerAccount);
      int sweepSeconds = 60;
      long s0 = System.nanoTime();
      Runner runner = start(env, dir, labels, sweepSeconds);
      try {
        quiet(proxy);
        long settled = System.nanoTime();
        proxy.reset();
        // The next sweep rings every door sweepSeconds after the sweeping started.
        while (proxy.requests() == 0) {
          Thread.sleep(20);
          if (System.nanoTime() - settled > Duration.ofSeconds(sweepSeconds * 2L).toNanos()) {
            throw new IllegalStateException("no sweep came");
          }
        }
        long first = System.nanoTime();
        long last = quiet(proxy);
        Map<String, Integer> per = new TreeMap<>();
        proxy.byMethod().forEach((m, c) -> per.put(shortName(m), c));
        return new String[] {
          "idle sweep of " + count + " repos (per repo; wall in time)",
          ms(last - first),
          String.format("%.2f", (double) proxy.requests() / count),
          String.format("%.2f", (double) proxy.roundTrips() / count),
          per + " in all; start and first passes took " + ms(settled - s0)
        };
      } finally {
        runner.stop();
      }
    }
  }

  private static Runner start(Map<String, String> env, Path dir, List<String> repos, int sweep)
      throws Exception {
    List<String> args =
        new ArrayList<>(
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

  private static CheckStatus status(XrpcClient reader, String did, String rkey)
      throws XrpcException {
    return reader
        .findRecord(did, CheckRecord.COLLECTION, rkey)
        .map(r -> CheckRecord.fromJson(r.value()).status())
        .orElse(null);
  }

  private static String median(long[] nanos) {
    long[] s = nanos.clone();
    java.util.Arrays.sort(s);
    return ms(s[s.length / 2]) + " (med)";
  }

  private static String ms(long nanos) {
    return (nanos / 1_000_000) + " ms";
  }

  private static String shortName(String method) {
    return method.replace("com.atproto.", "");
  }

  private static String commit(Path work, String content) throws Exception {
    Files.writeString(work.resolve("n.txt"), content + "\n");
    git(work, "add", "-A");
    git(
        work,
        "-c",
        "user.name=b",
        "-c",
        "user.email=b@example.test",
        "commit",
        "-q",
        "-m",
        content);
    return git(work, "rev-parse", "HEAD").strip();
  }

  private static String git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException("git " + String.join(" ", args) + ": " + out);
    }
    return out;
  }
}
