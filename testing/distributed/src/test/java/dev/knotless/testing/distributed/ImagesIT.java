package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.Account;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.infra.OwnerRepo;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The images the build makes (services/pom.xml, profile {@code images}) are the ones the chart
 * names, and each one runs: the distributed services from their images turn a push into a filed
 * check, each answers its health endpoints and exports what the dashboard reads, the all-in-one
 * runner's image starts and answers its health too, and the scheduler's image starts, takes the
 * Lease on a mock API server and exports its own names.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ImagesIT {
  static final String CI =
      """
      on: {push: {refs: [main]}}
      steps:
        - name: hello
          run: echo "hello from an image"
      """;
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private static Path root;
  private static ServiceImages images;
  private static LocalDistributed shape;
  private static OwnerRepo owner;
  private static final Map<String, ServiceProcess> running = new LinkedHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    LocalDocker.ensure();
    root = LocalDistributed.projectRoot();
    images = ServiceImages.of(root);
  }

  @AfterAll
  static void stop() {
    running.values().forEach(ServiceProcess::stop);
    if (shape != null) {
      shape.close();
    }
  }

  @Test
  @Order(1)
  void theBuildMadeAnImageOfEveryServiceUnderTheNameTheChartUses() throws Exception {
    List<String> services = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(root.resolve("services"))) {
      dirs.filter(d -> Files.isRegularFile(d.resolve("src/main/resources/application.properties")))
          .forEach(d -> services.add(d.getFileName().toString()));
    }
    assertTrue(
        services.containsAll(List.of("ingester", "reconciler", "check-writer")),
        services.toString());
    for (String service : images.repositories().keySet()) {
      if (Files.isDirectory(root.resolve("services").resolve(service))) {
        assertTrue(services.contains(service), service + " is in the chart but builds no image");
      }
    }
    for (String service : services) {
      String image = images.image(service);
      String size = docker("image", "inspect", "--format", "{{.Size}}", image).strip();
      System.out.printf("[ImagesIT] %s: %d MB%n", image, Long.parseLong(size) / (1000 * 1000));
    }
  }

  @Test
  @Order(2)
  void theServicesRunFromTheirImagesTurnAPushIntoAFiledCheck() throws Exception {
    Path dir = Files.createTempDirectory("images-it");
    shape = LocalDistributed.start(root, dir).fromImages();
    owner =
        shape.ownerRepo("app", Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
    long t0 = System.nanoTime();
    running.put("check-writer", shape.startCheckWriter());
    ServiceProcess reconciler = shape.startReconciler();
    running.put("reconciler", reconciler);
    running.put("ingester", shape.startIngester());
    // Jobs run one way: the scheduler, from its image, makes each run's pod.
    running.put("scheduler", shape.startScheduler());
    System.out.printf(
        "[ImagesIT] four services ready from their images: %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    for (ServiceProcess s : running.values()) {
      assertTrue(s.inContainer(), s.toString());
      assertEquals(200, status(s, "/q/health/live"), s + " live");
      assertEquals(200, status(s, "/q/health/ready"), s + " ready");
    }

    Checks.await(Duration.ofSeconds(90), "the baseline pass", () -> Checks.passes(reconciler) >= 1);
    owner.commit(Map.of("README.md", "hello again\n"));
    String sha = owner.push("main");
    Record ended =
        Checks.awaitOne(
            shape, Duration.ofSeconds(120), c -> c.status().ended() && c.commit().equals(sha));
    CheckRecord check = CheckRecord.fromJson(ended.value());
    assertEquals(CheckStatus.SUCCESS, check.status(), check.toString());
    assertTrue(Checks.log(shape, check).contains("hello from an image\n"));
  }

  @Test
  @Order(3)
  void eachServiceInItsImageExportsWhatTheDashboardAndAlertsRead() throws Exception {
    assertTrue(running.size() >= 3, "the services started: " + running.keySet());
    assertEquals(List.of(), ExportedMetrics.missing(root, running));
  }

  @Test
  @Order(4)
  void theAllInOneImageStartsAndAnswersItsHealth() throws Exception {
    assertTrue(owner != null, "the shared PDS and the owner's repository are there");
    Account runner = shape.pds().createAccount("aio");
    Path dir = shape.dir().resolve("all-in-one");
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(
        dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    Map<String, String> env = new LinkedHashMap<>(shape.pds().environment());
    env.put("KNOTLESS_IDENTIFIER", runner.handle());
    env.put("KNOTLESS_PASSWORD", runner.password());
    env.put("KNOTLESS_CACHE_DIR", dir.resolve("cache").toString());
    List<String> args =
        List.of(
            "--executor",
            "shell",
            "--state",
            dir.resolve("state.json").toString(),
            "--work",
            dir.resolve("work").toString(),
            "--firehose",
            "ws://127.0.0.1:" + shape.pds().pdsUrl().getPort(),
            owner.account.did() + "/app");
    ServiceProcess aio =
        ServiceProcess.startContainer(
            new ServiceProcess.Container(images.image("all-in-one"), List.of(dir), false, args),
            "all-in-one",
            Map.of(),
            env,
            shape.dir().resolve("logs"));
    running.put("all-in-one", aio);
    assertEquals(200, status(aio, "/q/health/live"));
    // The runner's gauges appear once it has logged in and read its repositories.
    Checks.await(
        Duration.ofSeconds(60),
        "the runner's gauges",
        () -> ExportedMetrics.names(aio.metrics()).contains("knotless_run_runs_running"));
  }

  @Test
  @Order(5)
  void theSchedulerImageStartsLeadsAndExportsWhatTheDashboardReads() throws Exception {
    assertTrue(shape != null, "the shared broker, database and PDS are there");
    ServiceProcess first = running.remove("scheduler");
    if (first != null) {
      // The one that ran the push's pod: this test's stands for a Lease of its own.
      first.stop();
    }
    try (dev.knotless.testing.kubelet.KubeApiServer api =
        dev.knotless.testing.kubelet.KubeApiServer.start()) {
      ServiceProcess scheduler =
          shape.startScheduler(
              api.url(), "images-it-token", "runs", "gvisor", LocalDocker.BUSYBOX, Map.of());
      running.put("scheduler", scheduler);
      assertTrue(scheduler.inContainer(), scheduler.toString());
      assertEquals(200, status(scheduler, "/q/health/live"), scheduler + " live");
      assertEquals(200, status(scheduler, "/q/health/ready"), scheduler + " ready");
      Checks.await(
          Duration.ofSeconds(60),
          "the scheduler leading on the API server's Lease",
          () -> scheduler.metric("knotless_run_scheduler_leader") == 1.0);
      assertTrue(
          api.requests().stream().anyMatch(r -> r.contains("/leases")),
          "the Lease was asked for: " + api.requests());
      assertEquals(
          List.of(),
          ExportedMetrics.missing(root, Map.of("scheduler", scheduler)).stream()
              .filter(p -> p.startsWith("scheduler"))
              // A scheduler that has run no run has no run histograms yet.
              .filter(p -> !p.contains("knotless_run_runs_"))
              .toList());
      scheduler.stop();
    }
  }

  private static int status(ServiceProcess s, String path) throws IOException {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(s.url(path)).timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static String docker(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("docker"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd));
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    return out;
  }
}
