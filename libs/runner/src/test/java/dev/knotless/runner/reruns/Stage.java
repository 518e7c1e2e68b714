package dev.knotless.runner.reruns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.cli.KnotlessCli;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.engine.Runner;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.infra.OwnerRepo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
 * One owner's repository worked with plain git and pushed in-process, and one runner watching it
 * in-process, its checks read back as a reader would. The runner may log in as the owner (for a
 * write-back) or as an account of its own.
 */
final class Stage implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(90);
  static final String MAIN = "refs/heads/main";

  final PdsInstance pds;
  final Account owner;
  final XrpcClient ownerClient;
  final RepoAddress address;
  final Account runnerAccount;
  final XrpcClient reader;
  final Path dir;
  final OwnerRepo repo;
  private final List<Runner> started = new ArrayList<>();

  /** Variables the runner and the owner's {@code knotless} see besides the stage's own. */
  final Map<String, String> extraEnv = new HashMap<>();

  Stage(PdsInstance pds, Path dir, boolean runnerIsOwner) throws IOException {
    this.pds = pds;
    this.dir = dir;
    this.owner = pds.createAccount("own");
    this.runnerAccount = runnerIsOwner ? owner : pds.createAccount("run");
    this.repo = new OwnerRepo(owner, pds.pdsUrl(), "app", dir.resolve("owner"));
    this.ownerClient = repo.client;
    this.reader = XrpcClient.create(pds.pdsUrl());
    this.address = repo.address;
  }

  String label() {
    return owner.handle() + "/app";
  }

  Path state() {
    return dir.resolve("state.json");
  }

  Map<String, String> runnerEnv() {
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", runnerAccount.handle());
    env.put("KNOTLESS_PASSWORD", runnerAccount.password());
    env.put("KNOTLESS_CACHE_DIR", dir.resolve("cache").toString());
    env.put("PATH", System.getenv("PATH"));
    env.put("HOME", dir.toString());
    env.putAll(extraEnv);
    return env;
  }

  /**
   * Starts the runner with the stage's files and the PDS's firehose, and waits for its baseline.
   */
  Runner start(String... extra) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--executor",
                "shell",
                "--state",
                state().toString(),
                "--work",
                dir.resolve("work").toString(),
                "--firehose",
                "ws://127.0.0.1:" + pds.pdsUrl().getPort()));
    args.addAll(List.of(extra));
    args.add(label());
    Runner r = Runner.start(RunnerOptions.parse(args, runnerEnv()).orElseThrow(), runnerEnv());
    started.add(r);
    String key = owner.did() + "/" + key();
    await("the first pass", () -> new JsonStateStore(state()).load(key).isPresent());
    return r;
  }

  /** Writes the files and commits them on the current branch. */
  String commit(Map<String, String> files) throws IOException {
    return repo.commit(files);
  }

  String head() throws IOException {
    return repo.head();
  }

  String push(String branch) throws IOException {
    return repo.push(branch);
  }

  String key() throws IOException {
    return repo.key();
  }

  /** Runs {@code knotless <args>} as the owner, as a terminal would; returns what it printed. */
  String knotless(String... args) {
    return knotlessWithInput("", args);
  }

  /** As {@link #knotless}, with {@code stdin} on its standard input. */
  String knotlessWithInput(String stdin, String... args) {
    String[] outErr = new String[2];
    int code = knotlessExit(stdin, outErr, args);
    assertEquals(0, code, "knotless " + String.join(" ", args) + ": " + outErr[1]);
    return outErr[0];
  }

  /** Runs {@code knotless <args>} as the owner; {@code outErr} gets what it printed on each. */
  int knotlessExit(String stdin, String[] outErr, String... args) {
    Map<String, String> env = new HashMap<>(pds.environment());
    env.putAll(extraEnv);
    env.put("KNOTLESS_IDENTIFIER", owner.handle());
    env.put("KNOTLESS_PASSWORD", owner.password());
    env.put("KNOTLESS_CACHE_DIR", dir.resolve("cli-cache").toString());
    env.put("HOME", dir.toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        KnotlessCli.run(
            List.of(args),
            new CliContext(
                env,
                new java.io.ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                () -> KnotlessRepos.fromEnvironment(env)));
    outErr[0] = out.toString(StandardCharsets.UTF_8);
    outErr[1] = err.toString(StandardCharsets.UTF_8);
    return code;
  }

  /** The runner's checks of the repository, by record key. */
  Map<String, CheckRecord> checks() throws IOException {
    return checks(key());
  }

  /** The runner's checks of the repository with {@code repoKey}, by record key. */
  Map<String, CheckRecord> checks(String repoKey) throws IOException {
    String prefix = CheckKeys.repoPrefix(owner.did(), repoKey);
    Map<String, CheckRecord> out = new LinkedHashMap<>();
    String cursor = prefix + "\u007f";
    while (true) {
      RecordPage page =
          reader.listRecords(runnerAccount.did(), CheckRecord.COLLECTION, 100, cursor, false);
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

  CheckRecord check(String ref, String commit, String workflow) throws IOException {
    String rkey = CheckKeys.push(owner.did(), key(), ref, commit, workflow);
    try {
      return CheckRecord.fromJson(
          reader.getRecord(runnerAccount.did(), CheckRecord.COLLECTION, rkey).value());
    } catch (XrpcException e) {
      if (e.kind() == XrpcException.Kind.RECORD_NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  CheckRecord awaitCheck(String ref, String commit, String workflow, Predicate<CheckRecord> until)
      throws Exception {
    CheckRecord[] last = {null};
    await(
        workflow + " at " + commit.substring(0, 8),
        () -> {
          try {
            last[0] = check(ref, commit, workflow);
          } catch (IOException e) {
            return false;
          }
          return last[0] != null && until.test(last[0]);
        },
        () -> String.valueOf(last[0]));
    return last[0];
  }

  CheckRecord awaitEnded(String ref, String commit, String workflow) throws Exception {
    return awaitCheck(ref, commit, workflow, c -> c.status().ended());
  }

  String log(CheckRecord c) throws IOException {
    return new String(reader.getBlob(runnerAccount.did(), c.log().cid()), StandardCharsets.UTF_8);
  }

  String git(String... args) throws IOException {
    return repo.git(args);
  }

  static void await(String what, BooleanSupplier done) throws InterruptedException {
    await(what, done, () -> "");
  }

  static void await(String what, BooleanSupplier done, java.util.function.Supplier<String> seen)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out after " + WAIT.toSeconds() + " s waiting for " + what + ": " + seen.get());
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
