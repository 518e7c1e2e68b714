package dev.knotless.allinone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.KafkaBroker;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code knotless-run}, as a user starts it, stopped with SIGTERM mid-run: the signal
 * handler stops the runner after {@code --stop-wait}, no check is left running, the process exits
 * 0, and the next start runs the run the stop dropped.
 */
@WithPds
class SignalIT {
  static final String SLOW =
      """
      on: {push: {}}
      steps:
        - name: long
          run: echo started; sleep 120
      """;
  static final String QUICK =
      """
      on: {push: {}}
      steps:
        - name: quick
          run: echo "quick ran"
      """;

  @Test
  void sigtermMidRunEndsEveryCheckAndTheNextStartRunsTheDroppedRun(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account runner = pds.createAccount("run");
    OwnerRepo owner =
        new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
    owner.commit(Map.of("README.md", "hello\n"));
    owner.push("main");
    String stateKey = owner.account.did() + "/" + owner.key();
    XrpcClient reader = XrpcClient.create(pds.pdsUrl());

    Process first = start(pds, runner, owner, tmp);
    try {
      await(
          "the first pass",
          () -> new JsonStateStore(tmp.resolve("state.json")).load(stateKey).isPresent(),
          first);
      String sha =
          owner.commit(
              Map.of(
                  ".knotless/workflows/a-slow.yml",
                  SLOW,
                  ".knotless/workflows/b-quick.yml",
                  QUICK));
      owner.push("main");
      await(
          "the slow run",
          () -> status(reader, runner, sha, "a-slow") == CheckStatus.RUNNING,
          first);

      long t0 = System.nanoTime();
      first.destroy(); // SIGTERM
      assertTrue(first.waitFor(60, TimeUnit.SECONDS), "knotless-run ended after SIGTERM");
      long stopMillis = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(0, first.exitValue(), "a stop asked for is a clean exit");
      assertTrue(stopMillis < 30_000, "stopped after --stop-wait, not the step: " + stopMillis);
      assertEquals(CheckStatus.CANCELLED, status(reader, runner, sha, "a-slow"));
      assertEquals(CheckStatus.CANCELLED, status(reader, runner, sha, "b-quick"));
      assertTrue(
          Files.readString(tmp.resolve("run-1.log")).contains("stop asked for"),
          "the log says why it stopped");
    } finally {
      first.destroyForcibly();
    }

    Process second = start(pds, runner, owner, tmp);
    try {
      String sha = owner.head();
      await(
          "the dropped run",
          () -> status(reader, runner, sha, "b-quick") == CheckStatus.SUCCESS,
          second);
      assertEquals(
          CheckStatus.CANCELLED,
          status(reader, runner, sha, "a-slow"),
          "only the dropped workflow runs again");
    } finally {
      second.destroy();
      second.waitFor(60, TimeUnit.SECONDS);
    }
  }

  private static int starts;

  private static Process start(PdsInstance pds, Account runner, OwnerRepo owner, Path tmp)
      throws Exception {
    Path root = Path.of(System.getProperty("knotless.repo.root", "../..")).toAbsolutePath();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-jar");
    cmd.add(root.resolve("services/all-in-one/target/quarkus-app/quarkus-run.jar").toString());
    cmd.addAll(
        List.of(
            "--state",
            tmp.resolve("state.json").toString(),
            "--work",
            tmp.resolve("work").toString(),
            "--jobs",
            "1",
            "--stop-wait",
            "1",
            "--firehose",
            "ws://127.0.0.1:" + pds.pdsUrl().getPort(),
            owner.account.did() + "/app"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(tmp.resolve("run-" + ++starts + ".log").toFile());
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", runner.handle());
    env.put("KNOTLESS_PASSWORD", runner.password());
    env.put("KNOTLESS_CACHE_DIR", tmp.resolve("cache").toString());
    env.put("KNOTLESS_METRICS_PORT", Integer.toString(KafkaBroker.freePort()));
    pb.environment().putAll(env);
    return pb.start();
  }

  private static CheckStatus status(
      XrpcClient reader, Account runner, String sha, String workflow) {
    try {
      for (Record r :
          reader.listRecords(runner.did(), CheckRecord.COLLECTION, 100, null, false).records()) {
        CheckRecord c = CheckRecord.fromJson(r.value());
        if (c.commit().equals(sha) && c.workflow().equals(workflow)) {
          return c.status();
        }
      }
      return null;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void await(String what, BooleanSupplier done, Process p) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!done.getAsBoolean()) {
      if (!p.isAlive()) {
        throw new AssertionError("knotless-run exited (" + p.exitValue() + ") waiting for " + what);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("waited two minutes for " + what);
      }
      Thread.sleep(100);
    }
  }
}
