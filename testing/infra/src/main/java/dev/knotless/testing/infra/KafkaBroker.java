package dev.knotless.testing.infra;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real single-node KRaft Kafka broker (module testing/kafka-broker, Kafka 4.4.0) run as a child
 * JVM on 127.0.0.1, so none of Kafka's server jars reach the test's classpath.
 *
 * <p>{@link #start} picks two free ports and a fresh data directory and waits for the broker's
 * {@code KAFKA_READY} line. {@link #restart} stops the broker and starts it again on the same ports
 * and data directory, as a broker restarting during a run would. {@link #close} stops it by its PID
 * (SIGTERM, then SIGKILL after {@value #STOP_GRACE_SECONDS} s) and deletes the data. The broker's
 * output goes to {@code broker.log} in the data directory's parent.
 *
 * <p>The broker module is found through the system property {@code knotless.kafka.broker.dir}, or
 * {@code <knotless.repo.root>/testing/kafka-broker}; it must have been built ({@code
 * target/broker-classpath.txt}). Not thread-safe: one test class drives one broker.
 */
public final class KafkaBroker implements AutoCloseable {
  /** How long a start waits for the ready line, in seconds. */
  public static final int READY_TIMEOUT_SECONDS = 120;

  /** How long a stop waits after SIGTERM before SIGKILL, in seconds. */
  public static final int STOP_GRACE_SECONDS = 30;

  private final Path workDir;
  private final int port;
  private final int controllerPort;
  private final Path log;
  private Process process;
  private long lastReadyMillis;
  private final Map<String, String> users;
  private final String acls;

  private KafkaBroker(
      Path workDir, int port, int controllerPort, Map<String, String> users, String acls) {
    this.workDir = workDir;
    this.port = port;
    this.controllerPort = controllerPort;
    this.log = workDir.resolve("broker.log");
    this.users = users;
    this.acls = acls;
  }

  /**
   * The services' users and what each may do, as {@link #startAuthenticated} grants it: the
   * ingester and the reconciler ring doorbells, the reconciler reads them, the reconciler and the
   * scheduler write run events, the check-writer reads them, writes the dead letters and rings the
   * doors of repositories whose batch or pull checks it filed ended.
   */
  public static final String SERVICE_ACLS =
      "ingester:write:knotless.doorbells;"
          + "reconciler:read:knotless.doorbells;"
          + "reconciler:write:knotless.doorbells;"
          + "reconciler:write:knotless.run-events;"
          + "scheduler:write:knotless.run-events;"
          + "check-writer:read:knotless.run-events;"
          + "check-writer:write:knotless.doorbells;"
          + "check-writer:write:knotless.run-events.dead";

  /** The services {@link #SERVICE_ACLS} names, each a SASL user of its own. */
  public static final List<String> SERVICES =
      List.of("ingester", "reconciler", "scheduler", "check-writer");

  /**
   * Starts a broker that takes only SASL PLAIN clients, with an {@code admin} super user and one
   * user per service granted {@link #SERVICE_ACLS}; fresh random passwords, held in memory and
   * passed to the broker in its environment only.
   */
  public static KafkaBroker startAuthenticated() throws IOException {
    Map<String, String> users = new java.util.LinkedHashMap<>();
    java.security.SecureRandom random = new java.security.SecureRandom();
    users.put("admin", password(random));
    for (String s : SERVICES) {
      users.put(s, password(random));
    }
    Path workDir = Files.createTempDirectory("knotless-kafka");
    KafkaBroker broker =
        new KafkaBroker(workDir, freePort(), freePort(), Map.copyOf(users), SERVICE_ACLS);
    broker.launch();
    return broker;
  }

  private static String password(java.security.SecureRandom random) {
    byte[] b = new byte[18];
    random.nextBytes(b);
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** Whether clients must authenticate. */
  public boolean authenticated() {
    return users != null;
  }

  /**
   * The client settings of {@code user} ({@code security.protocol}, {@code sasl.mechanism}, {@code
   * sasl.jaas.config}); empty for a broker without authentication. The JAAS line holds the
   * password: pass it in an environment, never an argument.
   */
  public Map<String, String> clientSettings(String user) {
    if (users == null) {
      return Map.of();
    }
    String pw = users.get(user);
    if (pw == null) {
      throw new IllegalArgumentException("no Kafka user " + user);
    }
    return Map.of(
        "security.protocol",
        "SASL_PLAINTEXT",
        "sasl.mechanism",
        "PLAIN",
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + user
            + "\" password=\""
            + pw
            + "\";");
  }

  /**
   * Starts a broker on free ports with a new data directory.
   *
   * @return the running broker
   * @throws IOException when it does not get ready, with the log's path in the message
   */
  public static KafkaBroker start() throws IOException {
    Path workDir = Files.createTempDirectory("knotless-kafka");
    KafkaBroker broker = new KafkaBroker(workDir, freePort(), freePort(), null, "");
    broker.launch();
    return broker;
  }

  /** The bootstrap servers, {@code 127.0.0.1:<port>}. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** The broker JVM's PID, or -1 while stopped. */
  public long pid() {
    return process == null ? -1 : process.pid();
  }

  /** Milliseconds from the last spawn to the ready line. */
  public long lastReadyMillis() {
    return lastReadyMillis;
  }

  /** Stops the broker by its PID and waits for it to exit; the data directory stays. */
  public void stop() {
    if (process == null) {
      return;
    }
    Process p = process;
    process = null;
    ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroy);
    try {
      if (!p.waitFor(STOP_GRACE_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops the broker and starts it again on the same ports and data directory.
   *
   * @throws IOException when it does not get ready again
   */
  public void restart() throws IOException {
    stop();
    launch();
  }

  /** Stops the broker and deletes its data directory. */
  @Override
  public void close() {
    stop();
    Dirs.deleteQuietly(workDir);
  }

  private void launch() throws IOException {
    long t0 = System.nanoTime();
    Path moduleDir = brokerModuleDir();
    Path cpFile = moduleDir.resolve("target/broker-classpath.txt");
    if (!Files.isRegularFile(cpFile)) {
      throw new IOException(
          cpFile + " is missing: build testing/kafka-broker first (mvn -f testing/kafka-broker)");
    }
    String cp =
        moduleDir.resolve("target/classes") + File.pathSeparator + Files.readString(cpFile).trim();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd =
        List.of(
            java,
            "-Xmx512m",
            "-Dknotless.kafka.acls=" + acls,
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            cp,
            "dev.knotless.testing.kafkabroker.KafkaBrokerMain",
            String.valueOf(port),
            String.valueOf(controllerPort),
            workDir.resolve("data").toString());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (users != null) {
      StringBuilder u = new StringBuilder("admin=").append(users.get("admin"));
      users.forEach((k, v) -> u.append(k.equals("admin") ? "" : "," + k + "=" + v));
      pb.environment().put("KNOTLESS_KAFKA_USERS", u.toString());
    }
    Process p = pb.start();
    process = p;
    CompletableFuture<Void> ready = new CompletableFuture<>();
    Thread pump = new Thread(() -> pump(p, ready), "kafka-broker-" + p.pid() + "-log");
    pump.setDaemon(true);
    pump.start();
    try {
      ready.get(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      stop();
      throw new IOException("Kafka broker did not get ready; its log ends:\n" + logTail(), e);
    } catch (InterruptedException e) {
      stop();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the Kafka broker started", e);
    }
    lastReadyMillis = (System.nanoTime() - t0) / 1_000_000;
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  private void pump(Process p, CompletableFuture<Void> ready) {
    try (BufferedReader r =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        PrintWriter w =
            new PrintWriter(
                Files.newBufferedWriter(
                    log, StandardOpenOption.CREATE, StandardOpenOption.APPEND))) {
      String line;
      while ((line = r.readLine()) != null) {
        w.println(line);
        w.flush();
        if (line.startsWith("KAFKA_READY ")) {
          ready.complete(null);
        }
      }
    } catch (IOException e) {
      ready.completeExceptionally(e);
    } finally {
      ready.completeExceptionally(new IllegalStateException("the Kafka broker exited"));
    }
  }

  private static Path brokerModuleDir() {
    String dir = System.getProperty("knotless.kafka.broker.dir");
    if (dir != null) {
      return Path.of(dir);
    }
    String root = System.getProperty("knotless.repo.root");
    if (root == null) {
      throw new IllegalStateException(
          "set knotless.kafka.broker.dir or knotless.repo.root to find testing/kafka-broker");
    }
    return Path.of(root, "testing", "kafka-broker");
  }

  /** Ports this JVM has handed out: none is handed out twice. */
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  /**
   * A free TCP port on 127.0.0.1 at the time of asking, never one this JVM handed out before: the
   * kernel may give the same ephemeral port to two binds in a row, and two servers told the same
   * port would see one fail, or a health check reach the other.
   */
  public static int freePort() {
    for (int tries = 0; tries < 100; tries++) {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
        if (HANDED_OUT.add(s.getLocalPort())) {
          return s.getLocalPort();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("no free port on 127.0.0.1", e);
      }
    }
    throw new IllegalStateException("no port on 127.0.0.1 not handed out before, in 100 tries");
  }
}
