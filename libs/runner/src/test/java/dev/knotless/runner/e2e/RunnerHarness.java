package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.fail;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.engine.Runner;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.infra.OwnerRepo;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * One runner account and its files (state, work, cache), started in-process as {@code knotless-run}
 * starts, and the checks it filed read back from its account as a reader would.
 */
final class RunnerHarness implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(60);

  final PdsInstance pds;
  final Account account;
  final Path dir;
  final XrpcClient reader;

  /** Variables every runner started here sees besides the account's, such as a database's. */
  final Map<String, String> extraEnv = new HashMap<>();

  private final List<Runner> started = new ArrayList<>();

  /** The config directory holding the runner's OAuth login, or null for a password login. */
  private Path oauthConfig;

  RunnerHarness(PdsInstance pds, Path dir, String name) throws IOException {
    this(pds, dir, pds.createAccount(name));
  }

  /** A runner logged in as {@code account}, such as a repository's owner landing its queue. */
  RunnerHarness(PdsInstance pds, Path dir, Account account) {
    this.pds = pds;
    this.account = account;
    this.dir = dir;
    this.reader = XrpcClient.create(pds.pdsUrl());
  }

  /**
   * Logs the runner in with OAuth (a session saved in its config directory, as {@code knotless-run
   * login} leaves one) instead of a password: what a runner of a private repository needs.
   */
  RunnerHarness withOAuth() throws IOException {
    oauthConfig = dir.resolve("config");
    dev.knotless.testing.infra.HarnessOAuth.saveLogin(pds, account, oauthConfig);
    return this;
  }

  Path state() {
    return dir.resolve("state.json");
  }

  Map<String, String> env() {
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", account.handle());
    if (oauthConfig == null) {
      env.put("KNOTLESS_PASSWORD", account.password());
    } else {
      env.put("KNOTLESS_CONFIG_DIR", oauthConfig.toString());
    }
    env.put("KNOTLESS_CACHE_DIR", dir.resolve("cache").toString());
    env.put("PATH", System.getenv("PATH"));
    env.put("HOME", dir.toString());
    env.putAll(extraEnv);
    return env;
  }

  /**
   * The flags every test's runner has: its files here (the state file unless {@code extra} names a
   * state database), and the PDS's firehose unless {@code extra} names a Jetstream instead.
   */
  List<String> args(List<String> extra, String... repos) {
    List<String> args = new ArrayList<>(List.of("--work", dir.resolve("work").toString()));
    if (!extra.contains("--state-db")) {
      args.addAll(List.of("--state", state().toString()));
    }
    if (!extra.contains("--jetstream")) {
      args.addAll(List.of("--firehose", "ws://127.0.0.1:" + pds.pdsUrl().getPort()));
    }
    if (!extra.contains("--executor")) {
      // Most tests read what steps write on the host; DockerRunnerIT names docker itself.
      args.addAll(List.of("--executor", "shell"));
    }
    args.addAll(extra);
    args.addAll(List.of(repos));
    return args;
  }

  /** Starts a runner in-process with {@link #args}. */
  Runner start(List<String> extra, String... repos) throws Exception {
    List<String> args = args(extra, repos);
    RunnerOptions o = RunnerOptions.parse(args, env()).orElseThrow();
    Runner r = Runner.start(o, env());
    started.add(r);
    return r;
  }

  /** The runners started so far, in order. */
  List<Runner> started() {
    return started;
  }

  /** Waits until the runner's state knows the repository: its first pass took the baseline. */
  void awaitWatched(OwnerRepo repo) throws Exception {
    String key = repo.account.did() + "/" + repo.key();
    await(
        "the first pass of " + repo.label(),
        () -> new JsonStateStore(state()).load(key).isPresent());
  }

  /** Every check of the repository in the runner's account, by record key. */
  Map<String, CheckRecord> checks(OwnerRepo repo) throws IOException {
    String prefix = CheckKeys.repoPrefix(repo.account.did(), repo.key());
    Map<String, CheckRecord> out = new LinkedHashMap<>();
    String cursor = prefix + "\u007f";
    while (true) {
      RecordPage page =
          reader.listRecords(account.did(), CheckRecord.COLLECTION, 100, cursor, false);
      for (Record r : page.records()) {
        if (!r.rkey().startsWith(prefix)) {
          return out;
        }
        out.put(r.rkey(), CheckRecord.fromJson(r.value()));
      }
      if (page.records().size() < 100) {
        return out;
      }
      cursor = page.cursor();
    }
  }

  /** The check of a push, once it exists. */
  CheckRecord check(OwnerRepo repo, String ref, String commit, String workflow) throws IOException {
    String rkey = CheckKeys.push(repo.account.did(), repo.key(), ref, commit, workflow);
    try {
      return CheckRecord.fromJson(
          reader.getRecord(account.did(), CheckRecord.COLLECTION, rkey).value());
    } catch (XrpcException e) {
      if (e.kind() == XrpcException.Kind.RECORD_NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  /** Waits for the push's check to satisfy {@code until}, and returns it. */
  CheckRecord awaitCheck(
      OwnerRepo repo, String ref, String commit, String workflow, Predicate<CheckRecord> until)
      throws Exception {
    CheckRecord[] last = {null};
    await(
        workflow + " at " + commit.substring(0, 8) + " (last seen: " + "%s" + ")",
        () -> {
          try {
            last[0] = check(repo, ref, commit, workflow);
          } catch (IOException e) {
            return false;
          }
          return last[0] != null && until.test(last[0]);
        },
        () -> String.valueOf(last[0]));
    return last[0];
  }

  /** The check of a pull's run at {@code head} merged with {@code base}, or null. */
  CheckRecord pullCheck(OwnerRepo repo, String pull, String head, String base, String workflow)
      throws IOException {
    String rkey = CheckKeys.pull(repo.account.did(), repo.key(), pull, head, base, workflow);
    return reader
        .findRecord(account.did(), CheckRecord.COLLECTION, rkey)
        .map(r -> CheckRecord.fromJson(r.value()))
        .orElse(null);
  }

  /** Waits for a pull's check to be filed as ended, and returns it. */
  CheckRecord awaitPullEnded(OwnerRepo repo, String pull, String head, String base, String workflow)
      throws Exception {
    CheckRecord[] last = {null};
    await(
        workflow
            + " of "
            + pull
            + " at "
            + head.substring(0, 8)
            + " on "
            + base.substring(0, 8)
            + " (last seen: %s)",
        () -> {
          try {
            last[0] = pullCheck(repo, pull, head, base, workflow);
          } catch (IOException e) {
            return false;
          }
          return last[0] != null && last[0].status().ended();
        },
        () -> String.valueOf(last[0]));
    return last[0];
  }

  /** Every check of one pull, by record key. */
  Map<String, CheckRecord> pullChecks(OwnerRepo repo, String pull) throws IOException {
    String prefix = CheckKeys.pullPrefix(repo.account.did(), repo.key(), pull);
    Map<String, CheckRecord> out = new LinkedHashMap<>();
    checks(repo)
        .forEach(
            (k, v) -> {
              if (k.startsWith(prefix)) {
                out.put(k, v);
              }
            });
    return out;
  }

  /** Waits for the check to be filed as ended. */
  CheckRecord awaitEnded(OwnerRepo repo, String ref, String commit, String workflow)
      throws Exception {
    return awaitCheck(repo, ref, commit, workflow, c -> c.status().ended());
  }

  byte[] log(CheckRecord c) throws IOException {
    return reader.getBlob(account.did(), c.log().cid());
  }

  static void await(String what, BooleanSupplier done) throws InterruptedException {
    await(what, done, () -> "");
  }

  static void await(String what, BooleanSupplier done, java.util.function.Supplier<String> seen)
      throws InterruptedException {
    await(WAIT, what, done, seen);
  }

  /** As {@link #await(String, BooleanSupplier)}, for a scenario of many runs one after another. */
  static void await(
      Duration max, String what, BooleanSupplier done, java.util.function.Supplier<String> seen)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out after " + max.toSeconds() + " s waiting for " + what.formatted(seen.get()));
      }
      Thread.sleep(100);
    }
  }

  @Override
  public void close() throws Exception {
    for (Runner r : started) {
      r.stop();
    }
  }
}
