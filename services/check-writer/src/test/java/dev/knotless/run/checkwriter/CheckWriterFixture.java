package dev.knotless.run.checkwriter;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.run.checkwriter.AppviewTestServer.Received;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.events.RunEventJson;
import dev.knotless.run.events.Topics;
import dev.knotless.run.testkit.KafkaBrokerResource;
import dev.knotless.runner.check.CheckKeys;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** The events of runs the check-writer tests publish, and what they read back to check them. */
final class CheckWriterFixture {
  static final Duration DEADLINE = Duration.ofSeconds(60);
  static final String OWNER = "did:plc:ownerofthisrepo000000000";
  static final String REPO = "3kcheckwriter1";

  private CheckWriterFixture() {}

  /** A service token the runner's PDS made for the appview and this method alone. */
  static void assertServiceToken(String authorization) {
    assertTrue(authorization != null && authorization.startsWith("Bearer "), authorization);
    String[] jwt = authorization.substring("Bearer ".length()).split("\\.");
    JsonNode claims;
    try {
      claims =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(java.util.Base64.getUrlDecoder().decode(jwt[1]));
    } catch (java.io.IOException e) {
      throw new AssertionError("the token's claims are not JSON", e);
    }
    assertEquals(RunnerAccountResource.APPVIEW_DID, claims.path("aud").asText());
    assertEquals("dev.knotless.putRunOutput", claims.path("lxm").asText());
    assertEquals(RunnerAccountResource.runner().did(), claims.path("iss").asText());
  }

  static long sentUpTo(Run run) {
    long end = 0;
    for (Received p : RunnerAccountResource.appview().received(run.uri())) {
      end = Math.max(end, p.offset() + p.text().getBytes(StandardCharsets.UTF_8).length);
    }
    return end;
  }

  static int lastLineEnd(byte[] log, int before) {
    for (int i = before - 1; i >= 0; i--) {
      if (log[i] == '\n' || log[i] == '\r') {
        return i + 1;
      }
    }
    return 0;
  }

  static List<String> lines(byte[] log) {
    return Arrays.asList(new String(log, StandardCharsets.UTF_8).split("(?<=[\r\n])"));
  }

  /** A log with short lines, a masked one, a 40,000-byte line, carriage returns and UTF-8. */
  static byte[] log() {
    StringBuilder b = new StringBuilder("==> build\n");
    for (int i = 0; i < 200; i++) {
      b.append("compiling module ").append(i).append(" – ✓ fine\n");
    }
    b.append("token: ***\n");
    b.append("x".repeat(40_000)).append('\n');
    b.append("10%\r50%\r100%\r\n");
    for (int i = 0; i < 100; i++) {
      b.append("test ").append(i).append(" passed ünïcode\n");
    }
    b.append("done without a line end");
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  static JsonNode awaitStatus(Run run, String status) {
    XrpcClient client = XrpcClient.create(RunnerAccountResource.pds().pdsUrl());
    String did = RunnerAccountResource.runner().did();
    JsonNode[] found = new JsonNode[1];
    await()
        .atMost(DEADLINE)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              Optional<dev.knotless.atproto.Record> r =
                  client.findRecord(did, "dev.knotless.check", run.key);
              found[0] = r.map(dev.knotless.atproto.Record::value).orElse(null);
              return found[0] != null && status.equals(found[0].path("status").asText());
            });
    return found[0];
  }

  static byte[] logBlob(JsonNode check) throws Exception {
    BlobRef ref = BlobRef.fromJson(check.get("log"));
    XrpcClient client = XrpcClient.create(RunnerAccountResource.pds().pdsUrl());
    return client.getBlob(RunnerAccountResource.runner().did(), ref.cid());
  }

  /** A run of {@code workflow} as the queue issued it, so its events are taken. */
  static Run queued(DataSource db, String workflow) throws Exception {
    Run run = new Run(workflow);
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "insert into run_queue (id, check_key, repo, owner_did, run_class, state,"
                    + " workflow, commit_id, created_seq, created_at) values"
                    + " (nextval('run_queue_seq'), ?, ?, ?, 'MAIN', 'WAITING', ?, ?,"
                    + " nextval('run_queue_order'), now())")) {
      s.setString(1, run.key);
      s.setString(2, OWNER + "/" + REPO);
      s.setString(3, OWNER);
      s.setString(4, workflow);
      s.setString(5, run.commit);
      s.executeUpdate();
    }
    return run;
  }

  static void publish(RunEvent event) throws Exception {
    publish(List.of(event));
  }

  static void publish(List<RunEvent> events) throws Exception {
    Properties p = new Properties();
    KafkaBrokerResource.testClient(p);
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (RunEvent e : events) {
        producer.send(
            new ProducerRecord<>(Topics.RUN_EVENTS, e.checkKey(), RunEventJson.encode(e)));
      }
      producer.flush();
    }
  }

  /** One run's events; times advance by a millisecond per event so each event is distinct. */
  static final class Run {
    final String key;
    final String commit =
        (UUID.randomUUID().toString() + UUID.randomUUID()).replace("-", "").substring(0, 40);
    final String workflow;
    private Instant clock = Instant.now();

    Run(String workflow) {
      this.workflow = workflow;
      this.key = CheckKeys.push(OWNER, REPO, "refs/heads/main", commit, workflow);
    }

    String uri() {
      return "at://" + RunnerAccountResource.runner().did() + "/dev.knotless.check/" + key;
    }

    RunEvent filed() {
      return new RunEvent.Filed(
          key, tick(), OWNER, REPO, "refs/heads/main", null, commit, null, workflow, null, false);
    }

    RunEvent started() {
      return new RunEvent.Started(key, fixed(1));
    }

    RunEvent stepStarted(String step) {
      return new RunEvent.StepStarted(key, fixed(2), step);
    }

    RunEvent stepEnded(String step) {
      return new RunEvent.StepEnded(key, fixed(3), step, "success", 1000);
    }

    RunEvent ended(long length) {
      return ended(length, List.of());
    }

    RunEvent ended(long length, List<RunEvent.ImageOutput> outputs) {
      return new RunEvent.Ended(
          key, fixed(4), "success", length, List.of("build=success"), null, outputs);
    }

    List<RunEvent> output(byte[] log, int from, int to, int chunk) {
      List<RunEvent> out = new ArrayList<>();
      for (int i = from; i < to; i += chunk) {
        int end = Math.min(to, i + chunk);
        out.add(new RunEvent.Output(key, fixed(2), i, Arrays.copyOfRange(log, i, end)));
      }
      return out;
    }

    private Instant tick() {
      return clock;
    }

    /** The same event gets the same time, so a replay is recognised as one. */
    private Instant fixed(int step) {
      return clock.plusMillis(step);
    }
  }
}
