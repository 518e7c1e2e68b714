package dev.knotless.allinone;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.infra.KafkaBroker;
import dev.knotless.testing.infra.OwnerRepo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/** The packaged {@code knotless-run} as a user starts it, against the test's PDS. */
final class PackagedRunner {
  final PdsInstance pds;
  final Account runner;
  final OwnerRepo owner;
  final Path dir;
  final XrpcClient reader;
  private int starts;
  private int metricsPort;
  Process process;

  PackagedRunner(PdsInstance pds, Path dir) throws Exception {
    this.pds = pds;
    this.dir = dir;
    this.runner = pds.createAccount("run");
    this.owner = new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", dir.resolve("owner"));
    this.reader = XrpcClient.create(pds.pdsUrl());
  }

  /** Starts {@code knotless-run} with {@code flags} watching the owner's repository. */
  Process start(String... flags) throws Exception {
    Path root = Path.of(System.getProperty("knotless.repo.root", "../..")).toAbsolutePath();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-jar");
    cmd.add(root.resolve("services/all-in-one/target/quarkus-app/quarkus-run.jar").toString());
    cmd.addAll(
        List.of(
            "--executor",
            "shell",
            "--state",
            dir.resolve("state.json").toString(),
            "--work",
            dir.resolve("work").toString(),
            "--firehose",
            "ws://127.0.0.1:" + pds.pdsUrl().getPort()));
    cmd.addAll(List.of(flags));
    cmd.add(owner.account.did() + "/app");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(log(++starts).toFile());
    Map<String, String> env = new HashMap<>(pds.environment());
    env.put("KNOTLESS_IDENTIFIER", runner.handle());
    env.put("KNOTLESS_PASSWORD", runner.password());
    env.put("KNOTLESS_CACHE_DIR", dir.resolve("cache").toString());
    metricsPort = KafkaBroker.freePort();
    env.put("KNOTLESS_METRICS_PORT", Integer.toString(metricsPort));
    pb.environment().putAll(env);
    process = pb.start();
    return process;
  }

  /** The log of the {@code n}th start. */
  Path log(int n) {
    return dir.resolve("run-" + n + ".log");
  }

  /** What the running process's {@code /q/metrics} says. */
  String metrics() throws Exception {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2))
        .build()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/q/metrics"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** The status of the check of {@code workflow} at {@code sha}, or null before it is filed. */
  CheckStatus status(String sha, String workflow) {
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

  /** Polls {@code done} every 100 ms for two minutes while the process lives. */
  void await(String what, BooleanSupplier done) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!done.getAsBoolean()) {
      if (!process.isAlive()) {
        throw new AssertionError(
            "knotless-run exited (" + process.exitValue() + ") waiting for " + what);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("waited two minutes for " + what);
      }
      Thread.sleep(100);
    }
  }
}
