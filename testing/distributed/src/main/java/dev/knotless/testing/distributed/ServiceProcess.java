package dev.knotless.testing.distributed;

import dev.knotless.testing.infra.KafkaBroker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One of the services, run as operators run it: its own JVM from {@code
 * services/<name>/target/quarkus-app/quarkus-run.jar}, HTTP on 127.0.0.1 and a free port, settings
 * as system properties and secrets in its environment only, output to a log file. Ended by PID.
 */
public final class ServiceProcess implements AutoCloseable {
  private static final Duration READY = Duration.ofSeconds(120);
  // HTTP/1.1, offering no h2c upgrade: with the upgrade offered, reading /q/metrics once failed
  // with "protocol error: Frame type(99) length(6583072) exceeds MAX_FRAME_SIZE(16384)".
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private final String name;
  private final Path jar;
  private final Map<String, String> settings;
  private final Map<String, String> env;
  private final Path log;
  private final int port;
  private Process process;

  private ServiceProcess(
      String name, Path jar, Map<String, String> settings, Map<String, String> env, Path log) {
    this.name = name;
    this.jar = jar;
    this.port = KafkaBroker.freePort();
    this.settings = new LinkedHashMap<>(settings);
    this.settings.put("quarkus.http.host", "127.0.0.1");
    this.settings.put("quarkus.http.port", Integer.toString(port));
    this.env = Map.copyOf(env);
    this.log = log;
  }

  /**
   * Starts {@code service} (a directory under {@code services/}) and waits until it is ready.
   *
   * @param settings its configuration, as system properties: never secrets
   * @param env what its environment adds: secrets go here
   * @param logDir where {@code <label>.log} is written
   */
  public static ServiceProcess start(
      Path root,
      String service,
      String label,
      Map<String, String> settings,
      Map<String, String> env,
      Path logDir)
      throws IOException {
    Path jar =
        root.resolve("services").resolve(service).resolve("target/quarkus-app/quarkus-run.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IOException(jar + " is missing: build the services first (./mvnw -B package)");
    }
    Files.createDirectories(logDir);
    ServiceProcess s =
        new ServiceProcess(label, jar, settings, env, logDir.resolve(label + ".log"));
    s.launch();
    return s;
  }

  private void launch() throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    settings.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
    cmd.add("-jar");
    cmd.add(jar.toString());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    process = pb.start();
    awaitReady();
  }

  private void awaitReady() throws IOException {
    long deadline = System.nanoTime() + READY.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(name + " exited with " + process.exitValue() + "; see " + log);
      }
      try {
        HttpResponse<String> r =
            HTTP.send(
                HttpRequest.newBuilder(url("/q/health/ready"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
        last = r.statusCode() + " " + r.body();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
      sleep(250);
    }
    throw new IOException(name + " not ready after " + READY + ": " + last + "; see " + log);
  }

  /** A URL of the service's HTTP endpoint. */
  public URI url(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  /** What {@code /q/metrics} says now. */
  public String metrics() throws IOException {
    try {
      return HTTP.send(
              HttpRequest.newBuilder(url("/q/metrics")).timeout(Duration.ofSeconds(30)).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** The sum of a counter's or gauge's samples whose line starts with {@code prefix}. */
  public double metric(String prefix) throws IOException {
    double sum = 0;
    for (String line : metrics().split("\n")) {
      if (line.startsWith(prefix)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** The service's process id. */
  public long pid() {
    return process.pid();
  }

  /** Its log file. */
  public Path log() {
    return log;
  }

  /**
   * Ends it at once with SIGKILL, as a crash or an evicted pod would: the JVM and every process it
   * started (the steps it was running), which in a pod die with it.
   */
  public void kill() {
    List<ProcessHandle> children = process.descendants().toList();
    process.destroyForcibly();
    children.forEach(ProcessHandle::destroyForcibly);
    waitExit();
  }

  /** Asks it to stop with SIGTERM and waits for it; SIGKILL after 30 seconds. */
  public void stop() {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    waitExit();
  }

  /** Starts it again with the same settings and port, after a stop or kill. */
  public void restart() throws IOException {
    stop();
    launch();
  }

  private void waitExit() {
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return name + " (pid " + (process == null ? "-" : process.pid()) + ", port " + port + ")";
  }
}
