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
 * services/<name>/target/quarkus-app/quarkus-run.jar}, or a container of its image ({@link
 * ServiceImages}), HTTP on 127.0.0.1 and a free port, settings as system properties and secrets in
 * its environment only, output to a log file. A process is ended by PID, a container by its name.
 */
public final class ServiceProcess implements AutoCloseable {
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
  private int port;
  private int managementPort;
  private final Container container;
  private Process process;
  private int launches;

  /**
   * How a service runs from its image: on the host's network (so it reaches the broker, PostgreSQL
   * and the PDS on 127.0.0.1, and its port is the host's), with {@code mounts} bound at the same
   * paths, the docker socket when its runs go to the daemon, and {@code args} after the image's
   * entrypoint (the all-in-one runner's flags).
   */
  public record Container(
      String image, List<Path> mounts, boolean dockerSocket, List<String> args) {}

  private ServiceProcess(
      String name,
      Path jar,
      Container container,
      Map<String, String> settings,
      Map<String, String> env,
      Path log) {
    this.name = name;
    this.jar = jar;
    this.container = container;
    this.settings = new LinkedHashMap<>(settings);
    choosePorts();
    // The test PDS, PLC directory and appview answer on 127.0.0.1 over plain http.
    this.settings.put("knotless.allow-local-services", "true");
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
        new ServiceProcess(label, jar, null, settings, env, logDir.resolve(label + ".log"));
    s.firstLaunch();
    return s;
  }

  /**
   * Starts a container of {@code container}'s image under docker and waits until it is ready; as
   * {@link #start}, with the settings in {@code JAVA_TOOL_OPTIONS} and every variable passed by
   * name only, so no value is on the docker command line.
   */
  public static ServiceProcess startContainer(
      Container container,
      String label,
      Map<String, String> settings,
      Map<String, String> env,
      Path logDir)
      throws IOException {
    Files.createDirectories(logDir);
    ServiceProcess s =
        new ServiceProcess(label, null, container, settings, env, logDir.resolve(label + ".log"));
    s.firstLaunch();
    return s;
  }

  /** Free ports for HTTP and, but for the all-in-one, the management interface. */
  private void choosePorts() {
    port = KafkaBroker.freePort();
    settings.put("quarkus.http.host", "127.0.0.1");
    settings.put("quarkus.http.port", Integer.toString(port));
    // Health and metrics answer on the management interface, a port of their own; the all-in-one
    // has none (its one HTTP port, on loopback, is its metrics port).
    managementPort = name.startsWith("all-in-one") ? port : KafkaBroker.freePort();
    if (managementPort != port) {
      settings.put("quarkus.management.host", "127.0.0.1");
      settings.put("quarkus.management.port", Integer.toString(managementPort));
    }
  }

  /**
   * Launches it the first time. A port found free can be taken by another process before the
   * service binds it (other suites run beside this one): the service then stops at start saying it
   * could not bind, and is launched again on fresh ports, up to three times.
   */
  private void firstLaunch() throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        launch();
        return;
      } catch (ServiceReadiness.PortTaken e) {
        if (attempt == 3) {
          throw e;
        }
        System.err.println(e.getMessage() + "; launching it again on other ports");
        choosePorts();
      }
    }
  }

  private void launch() throws IOException {
    List<String> cmd = new ArrayList<>();
    Map<String, String> environment = new LinkedHashMap<>(env);
    if (container == null) {
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("-Xmx256m");
      settings.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
      cmd.add("-jar");
      cmd.add(jar.toString());
    } else {
      List<String> options = new ArrayList<>(List.of("-Xmx256m"));
      settings.forEach((k, v) -> options.add("-D" + k + "=" + v));
      environment.put("JAVA_TOOL_OPTIONS", String.join(" ", options));
      cmd.addAll(List.of("docker", "run", "--rm", "--name", containerName(++launches)));
      cmd.addAll(List.of("--network", "host", "--label", "knotless-test=distributed"));
      for (String variable : environment.keySet()) {
        cmd.addAll(List.of("-e", variable));
      }
      for (Path m : container.mounts()) {
        cmd.addAll(List.of("-v", m + ":" + m));
      }
      if (container.dockerSocket()) {
        Path socket = Path.of("/var/run/docker.sock");
        cmd.addAll(List.of("-v", socket + ":" + socket));
        cmd.addAll(List.of("--group-add", Files.getAttribute(socket, "unix:gid").toString()));
      }
      cmd.add(container.image());
      cmd.addAll(container.args());
    }
    long logStart = Files.exists(log) ? Files.size(log) : 0;
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(environment);
    process = pb.start();
    try {
      ServiceReadiness.await(
          HTTP, process, name, port, managementPort, url("/q/health/ready"), log, logStart);
    } catch (IOException e) {
      // Not ready: it is ended here, since no one else holds it to end it later.
      if (container != null) {
        docker("kill", containerName(launches));
      }
      process.destroyForcibly();
      throw e;
    }
  }

  private String containerName(int launch) {
    return "knotless-it-" + name + "-" + port + "-" + launch;
  }

  /** Whether it runs in a container of its image. */
  public boolean inContainer() {
    return container != null;
  }

  private void docker(String... args) {
    List<String> cmd = new ArrayList<>(List.of("docker"));
    cmd.addAll(List.of(args));
    try {
      Process p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      System.err.println(String.join(" ", cmd) + " could not run: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * A URL of the service's: {@code /q/} paths on its management port, the rest on its HTTP port.
   */
  public URI url(String path) {
    return path.startsWith("/q/") ? managementUrl(path) : serviceUrl(path);
  }

  /** A URL on the service's own HTTP port, where health and metrics are not served. */
  public URI serviceUrl(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  /** A URL on the management interface, where {@code /q/health} and {@code /q/metrics} are. */
  public URI managementUrl(String path) {
    return URI.create("http://127.0.0.1:" + managementPort + path);
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
        sum += sampleValue(line);
      }
    }
    return sum;
  }

  /**
   * The value of one sample line of {@code /q/metrics}: the number after the name and labels, with
   * any exemplar ({@code # {trace_id=…} 1.0 <time>}, which the services add once OpenTelemetry is
   * in them) left off.
   */
  public static double sampleValue(String line) {
    int exemplar = line.indexOf(" # ");
    String sample = exemplar < 0 ? line : line.substring(0, exemplar);
    return Double.parseDouble(sample.substring(sample.lastIndexOf(' ') + 1));
  }

  /** The service's process id (of the docker client, for a container). */
  public long pid() {
    return process.pid();
  }

  /** Whether its process (the docker client, for a container) is still running. */
  public boolean alive() {
    return process != null && process.isAlive();
  }

  /**
   * How many processes it started are alive now whose command line holds {@code marker}: for a
   * service that runs steps as its own children (the shell executor), its steps in flight.
   */
  public long childrenRunning(String marker) {
    if (process == null || !process.isAlive()) {
      return 0;
    }
    return process
        .descendants()
        .filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false))
        .count();
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
    if (container != null) {
      docker("kill", containerName(launches));
      waitExit();
      return;
    }
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
    if (container != null) {
      docker("stop", "--time", "30", containerName(launches));
      waitExit();
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

  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return name
        + (container == null ? "" : " (" + container.image() + ")")
        + " (pid "
        + (process == null ? "-" : process.pid())
        + ", port "
        + port
        + ")";
  }
}
