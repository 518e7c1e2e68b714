package dev.knotless.testing.kafkabroker;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A single-node KRaft Kafka (broker and controller in one) on 127.0.0.1, for tests and the
 * one-machine deploy.
 *
 * <p>Arguments: {@code <broker port> <controller port> <log dir>}. Prints {@code KAFKA_READY
 * 127.0.0.1:<port>} on stdout once the broker serves. A log dir formatted before is reused as it
 * is, so a restart on the same ports and directory keeps topics and committed offsets. Stops on
 * SIGTERM or when its stdin closes (its parent died), shutting the server down cleanly either way;
 * {@code -Dknotless.kafka.watch-stdin=false} makes it ignore stdin, for a start in the background.
 *
 * <p>With {@code KNOTLESS_KAFKA_USERS=admin=<password>,<user>=<password>,...} in its environment
 * both listeners take only SASL PLAIN clients, the first user is the broker's own and the only
 * super user, and {@code -Dknotless.kafka.acls} (see {@link Sasl#grant}) says what each other user
 * may do; everything else is denied.
 */
public final class KafkaBrokerMain {
  private KafkaBrokerMain() {}

  /**
   * Runs the broker until stdin closes or the JVM is told to stop.
   *
   * @param args broker port, controller port, log directory
   * @throws Exception when the storage cannot be formatted or the server cannot start
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: KafkaBrokerMain <broker port> <controller port> <log dir>");
      System.exit(2);
    }
    long t0 = System.nanoTime();
    int port = Integer.parseInt(args[0]);
    int controllerPort = Integer.parseInt(args[1]);
    Path logDir = Path.of(args[2]).toAbsolutePath();
    Files.createDirectories(logDir);

    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put(
        "listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("log.dirs", logDir.toString());
    p.put("num.partitions", System.getProperty("knotless.kafka.partitions", "4"));
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("auto.create.topics.enable", "true");

    String users = System.getenv("KNOTLESS_KAFKA_USERS");
    boolean sasl = users != null && !users.isBlank();
    if (sasl) {
      Sasl.configure(p, port, controllerPort);
    }
    Path cfg = logDir.resolveSibling(logDir.getFileName() + ".properties");
    try (var w = Files.newBufferedWriter(cfg)) {
      p.store(w, "knotless-run test broker");
    }
    // The passwords go in after the file is written: they stay in this process's memory only.
    if (sasl) {
      Sasl.users(p, users);
    }
    // A restart must present the cluster id the log dir was formatted with, so it is kept beside
    // it.
    Path idFile = logDir.resolveSibling(logDir.getFileName() + ".cluster-id");
    if (!Files.exists(idFile)) {
      Files.writeString(idFile, Uuid.randomUuid().toString());
    }
    String clusterId = Files.readString(idFile).trim();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc =
        StorageTool.execute(
            new String[] {"format", "-t", clusterId, "-c", cfg.toString(), "--ignore-formatted"},
            new PrintStream(out, true, StandardCharsets.UTF_8));
    System.out.println("format rc=" + rc + ": " + out.toString(StandardCharsets.UTF_8).trim());
    if (rc != 0) {
      System.exit(rc);
    }

    KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(p), Time.SYSTEM);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.shutdown();
                  server.awaitShutdown();
                },
                "kafka-shutdown"));
    server.startup();
    if (sasl) {
      Sasl.grant(port, users, System.getProperty("knotless.kafka.acls", ""));
    }
    System.out.printf(
        "KAFKA_READY 127.0.0.1:%d in %d ms%n", port, (System.nanoTime() - t0) / 1_000_000);
    System.out.flush();
    // A background start (the deploy script) has no parent to watch: it stops on SIGTERM only.
    if (Boolean.parseBoolean(System.getProperty("knotless.kafka.watch-stdin", "true"))) {
      while (System.in.read() != -1) {
        // Only EOF matters: the parent closed our stdin or died.
      }
      System.exit(0);
    }
    server.awaitShutdown();
  }
}
