package dev.knotless.runner.e2e.schedule;

import static org.junit.jupiter.api.Assertions.fail;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.engine.Runner;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.storage.push.Pusher;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.infra.OwnerRepo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A runner account started in-process as {@code knotless-run} starts, with the PDS's firehose as
 * its doorbell, and one owner who commits with plain git and pushes with the storage library's
 * {@link Pusher} (what {@code git-remote-knotless} runs). Reads back what the runner filed as any
 * reader would.
 */
final class Fleet implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(90);

  final PdsInstance pds;
  final Account runnerAccount;
  final Account owner;
  final Path dir;
  final XrpcClient reader;
  private final OwnerRepo repo;
  private Runner runner;

  Fleet(PdsInstance pds, Path dir) throws IOException {
    this.pds = pds;
    this.dir = dir;
    this.runnerAccount = pds.createAccount("sched");
    this.owner = pds.createAccount("own");
    this.reader = XrpcClient.create(pds.pdsUrl());
    this.repo = new OwnerRepo(owner, pds.pdsUrl(), "app", dir.resolve("owner"));
    commit(Map.of("README.md", "hello\n"));
    push("main");
  }

  Path state() {
    return dir.resolve("state.json");
  }

  /** Starts the runner with these flags besides its files and the firehose, watching the repo. */
  Runner start(String... flags) throws Exception {
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", runnerAccount.handle());
    env.put("KNOTLESS_PASSWORD", runnerAccount.password());
    env.put("KNOTLESS_CACHE_DIR", dir.resolve("cache").toString());
    env.put("PATH", System.getenv("PATH"));
    env.put("HOME", dir.toString());
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
                "ws://" + pds.pdsUrl().getAuthority()));
    args.addAll(List.of(flags));
    args.add(owner.handle() + "/app");
    runner = Runner.start(RunnerOptions.parse(args, env).orElseThrow(), env);
    String key = owner.did() + "/" + repoKey();
    await("the first pass", () -> new JsonStateStore(state()).load(key).isPresent());
    return runner;
  }

  /** Writes the files and commits them on the current branch; returns the commit. */
  String commit(Map<String, String> files) throws IOException {
    return repo.commit(files);
  }

  /** Pushes HEAD to {@code refs/heads/<branch>}, forced; returns the commit. */
  String push(String branch) throws IOException {
    return repo.push(branch);
  }

  String repoKey() throws IOException {
    return repo.key();
  }

  /** Waits for the push's check of {@code workflow} to be filed as ended, and returns it. */
  CheckRecord awaitEnded(String branch, String commit, String workflow) throws Exception {
    String rkey = CheckKeys.push(owner.did(), repoKey(), "refs/heads/" + branch, commit, workflow);
    CheckRecord[] last = {null};
    await(
        workflow + " at " + branch + " to end",
        () -> {
          Optional<Record> r = reader.findRecord(runnerAccount.did(), CheckRecord.COLLECTION, rkey);
          last[0] = r.map(x -> CheckRecord.fromJson(x.value())).orElse(null);
          return last[0] != null && last[0].status().ended();
        });
    return last[0];
  }

  String log(CheckRecord c) throws IOException {
    return new String(reader.getBlob(runnerAccount.did(), c.log().cid()), StandardCharsets.UTF_8);
  }

  /** Polls {@code done} until it holds or {@link #WAIT} is up. */
  static void await(String what, Check done) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!done.holds()) {
      if (System.nanoTime() > deadline) {
        fail("timed out after " + WAIT.toSeconds() + " s waiting for " + what);
      }
      Thread.sleep(100);
    }
  }

  /** Polls for a value until it satisfies {@code ok}. */
  static <T> T awaitValue(String what, Source<T> read, Predicate<T> ok) throws Exception {
    Object[] last = {null};
    await(
        what,
        () -> {
          T v = read.get();
          last[0] = v;
          return v != null && ok.test(v);
        });
    @SuppressWarnings("unchecked")
    T v = (T) last[0];
    return v;
  }

  @FunctionalInterface
  interface Check {
    boolean holds() throws Exception;
  }

  @FunctionalInterface
  interface Source<T> {
    T get() throws Exception;
  }

  @Override
  public void close() throws Exception {
    if (runner != null) {
      runner.stop();
    }
  }
}
