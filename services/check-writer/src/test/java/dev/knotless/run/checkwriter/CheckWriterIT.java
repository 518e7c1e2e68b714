package dev.knotless.run.checkwriter;

import static dev.knotless.run.checkwriter.CheckWriterFixture.DEADLINE;
import static dev.knotless.run.checkwriter.CheckWriterFixture.OWNER;
import static dev.knotless.run.checkwriter.CheckWriterFixture.REPO;
import static dev.knotless.run.checkwriter.CheckWriterFixture.assertServiceToken;
import static dev.knotless.run.checkwriter.CheckWriterFixture.awaitStatus;
import static dev.knotless.run.checkwriter.CheckWriterFixture.lastLineEnd;
import static dev.knotless.run.checkwriter.CheckWriterFixture.lines;
import static dev.knotless.run.checkwriter.CheckWriterFixture.log;
import static dev.knotless.run.checkwriter.CheckWriterFixture.logBlob;
import static dev.knotless.run.checkwriter.CheckWriterFixture.publish;
import static dev.knotless.run.checkwriter.CheckWriterFixture.sentUpTo;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.run.checkwriter.AppviewTestServer.Received;
import dev.knotless.run.checkwriter.CheckWriterFixture.Run;
import dev.knotless.run.checkwriter.app.CheckWriter;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.events.Topics;
import dev.knotless.run.testkit.KafkaBrokerResource;
import dev.knotless.run.testkit.ManagementPort;
import dev.knotless.run.testkit.PostgresResource;
import dev.knotless.testing.CountingProxy;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

@WithTestResource(
    value = KafkaBrokerResource.class,
    scope = TestResourceScope.GLOBAL,
    initArgs = @ResourceArg(name = "user", value = "check-writer"))
@WithTestResource(value = PostgresResource.class, scope = TestResourceScope.GLOBAL)
@WithTestResource(value = RunnerAccountResource.class, scope = TestResourceScope.GLOBAL)
@QuarkusTest
class CheckWriterIT {
  private static final String PUT_RECORD = "com.atproto.repo.putRecord";

  @Inject CheckWriter writer;

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  @Inject DataSource db;

  @Test
  void aQueuedRunIsFiledRunningThenSuccessWithItsWholeLogInThreeWrites() throws Exception {
    Run run = queued("ci");
    byte[] log = log();
    CountingProxy pds = RunnerAccountResource.proxy();
    pds.reset();
    publish(run.filed());
    await().atMost(DEADLINE).until(() -> keptLogLength(run) == 0);
    // The pass filed the check queued already; writing it queued again would be a seventh request.
    assertEquals(0, pds.requests(PUT_RECORD), "filed writes nothing: " + pds.byMethod());
    publish(run.started());
    awaitStatus(run, "running");
    assertEquals(1, pds.requests(PUT_RECORD), "running is one write: " + pds.byMethod());
    List<RunEvent> rest = new ArrayList<>();
    rest.add(run.stepStarted("build"));
    rest.addAll(run.output(log, 0, log.length, 777));
    rest.add(run.stepEnded("build"));
    rest.add(run.ended(log.length));
    long t0 = System.nanoTime();
    publish(rest);
    JsonNode check = awaitStatus(run, "success");
    System.out.printf(
        "[CheckWriterIT] %d bytes in %d events to a success check in %d ms%n",
        log.length, rest.size(), (System.nanoTime() - t0) / 1_000_000);
    assertArrayEquals(log, logBlob(check), "the log blob is the whole log");
    assertEquals("build", check.path("steps").get(0).path("name").asText());
    assertEquals("success", check.path("steps").get(0).path("status").asText());
    assertPiecesAreTheLogInOrder(run, log);
    assertEquals(2, pds.requests(PUT_RECORD), "the end is one write: " + pds.byMethod());
    assertEquals(1, pds.requests("com.atproto.repo.uploadBlob"), "one log blob: " + pds.byMethod());
  }

  @Test
  void forgedEventsForRunsNeverQueuedAreNotFiledAndGoToTheDeadLettersWithTheReason()
      throws Exception {
    Run forged = new Run("forged");
    List<RunEvent> success = new ArrayList<>();
    success.add(forged.filed());
    success.add(forged.started());
    success.add(forged.ended(0));
    Run real = queued("real");
    RunEvent.Filed otherCommit =
        new RunEvent.Filed(
            real.key,
            Instant.now(),
            OWNER,
            REPO,
            "refs/heads/main",
            null,
            "f".repeat(40),
            null,
            "real",
            null,
            false);
    RunEvent.Filed otherWorkflow =
        new RunEvent.Filed(
            real.key,
            Instant.now(),
            OWNER,
            REPO,
            "refs/heads/main",
            null,
            real.commit,
            null,
            "deploy",
            null,
            false);
    Run lone = new Run("lone-success");
    success.add(otherCommit);
    success.add(otherWorkflow);
    success.add(lone.ended(0));
    publish(success);

    java.util.Map<String, List<String>> dead =
        deadLetters(java.util.Map.of(forged.key, 3, real.key, 2, lone.key, 1));
    assertEquals(
        List.of(
            "no run with check key " + forged.key + " was queued",
            "no run with check key " + forged.key + " was queued and filed",
            "no run with check key " + forged.key + " was queued and filed"),
        dead.get(forged.key));
    assertEquals(
        List.of(
            "the queued run "
                + real.key
                + " checks commit "
                + real.commit
                + ", not "
                + "f".repeat(40),
            "the queued run " + real.key + " runs workflow real, not deploy"),
        dead.get(real.key));
    assertEquals(
        List.of("no run with check key " + lone.key + " was queued and filed"), dead.get(lone.key));
    XrpcClient client = XrpcClient.create(RunnerAccountResource.pds().pdsUrl());
    String did = RunnerAccountResource.runner().did();
    for (String key : List.of(forged.key, real.key, lone.key)) {
      assertTrue(client.findRecord(did, "dev.knotless.check", key).isEmpty(), key + " was filed");
    }
  }

  /** The reasons of the dead letters with each key, once {@code want} of each have arrived. */
  private java.util.Map<String, List<String>> deadLetters(java.util.Map<String, Integer> want)
      throws Exception {
    Properties c = new Properties();
    KafkaBrokerResource.testClient(c);
    c.put("group.id", "dead-letter-reader-" + UUID.randomUUID());
    c.put("auto.offset.reset", "earliest");
    java.util.Map<String, List<String>> dead = new java.util.HashMap<>();
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    try (var consumer =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(
            c,
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.StringDeserializer())) {
      consumer.subscribe(List.of(Topics.RUN_EVENTS_DEAD));
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (System.nanoTime() < deadline
          && !want.entrySet().stream()
              .allMatch(e -> dead.getOrDefault(e.getKey(), List.of()).size() >= e.getValue())) {
        for (var r : consumer.poll(Duration.ofMillis(500))) {
          if (want.containsKey(r.key())) {
            dead.computeIfAbsent(r.key(), k -> new ArrayList<>())
                .add(json.readTree(r.value()).path("reason").asText());
          }
        }
      }
    }
    return dead;
  }

  @Test
  void aConsumerRestartingMidRunWithReplayedEventsNeitherLosesNorRepeatsALine() throws Exception {
    Run run = queued("restart");
    byte[] log = log();
    int half = log.length / 2 + 3;
    List<RunEvent> first = new ArrayList<>();
    first.add(run.filed());
    first.add(run.started());
    first.add(run.stepStarted("build"));
    first.addAll(run.output(log, 0, half, 500));
    publish(first);
    await().atMost(DEADLINE).until(() -> keptLogLength(run) == half);
    int lastLineEnd = lastLineEnd(log, half);
    await().atMost(DEADLINE).until(() -> sentUpTo(run) >= lastLineEnd);

    writer.dropMemory();
    List<RunEvent> replay = new ArrayList<>();
    replay.add(run.started());
    replay.addAll(run.output(log, 0, half + 100, 4096));
    replay.addAll(run.output(log, 0, half, 500));
    replay.addAll(run.output(log, half - 50, log.length, 1500));
    replay.add(run.stepEnded("build"));
    replay.add(run.ended(log.length));
    replay.add(run.ended(log.length));
    publish(replay);

    JsonNode check = awaitStatus(run, "success");
    byte[] blob = logBlob(check);
    assertEquals(lines(log), lines(blob), "every line once, in order");
    assertArrayEquals(log, blob);
    assertPiecesAreTheLogInOrder(run, log);
  }

  @Test
  void aSchedulerThatAdoptedTheRunWritesTheLogAgainAndItsLogIsFiledWithoutASplice()
      throws Exception {
    Run run = queued("adopted");
    byte[] body = log();
    byte[] first = concat("cache /cache: restored from its base (1204 ms)\n", body);
    int cut = first.length / 2;
    List<RunEvent> before = new ArrayList<>();
    before.add(run.filed());
    before.add(run.started());
    before.add(run.stepStarted("build"));
    before.addAll(run.output(first, 0, cut, 700));
    publish(before);
    await().atMost(DEADLINE).until(() -> keptLogLength(run) == cut);

    // The scheduler that adopted the pod follows its steps from their first byte, with a line of
    // its own where the first wrote another.
    byte[] again = concat("cache /cache: this pod was adopted; nothing it writes is kept\n", body);
    List<RunEvent> after = new ArrayList<>(run.output(again, 0, again.length, 900));
    after.add(run.stepEnded("build"));
    after.add(run.ended(again.length));
    publish(after);

    JsonNode check = awaitStatus(run, "success");
    assertArrayEquals(again, logBlob(check), "the adopting scheduler's log, whole and alone");
  }

  private static byte[] concat(String head, byte[] body) {
    byte[] h = head.getBytes(StandardCharsets.UTF_8);
    byte[] out = Arrays.copyOf(h, h.length + body.length);
    System.arraycopy(body, 0, out, h.length, body.length);
    return out;
  }

  @Test
  void outputHeldWhileTheAppviewFailsGoesInTheNextRoundInOrder() throws Exception {
    Run run = queued("appview-out");
    byte[] log = log();
    int part = lastLineEnd(log, 3000);
    List<RunEvent> first = new ArrayList<>();
    first.add(run.filed());
    first.add(run.started());
    publish(first);
    awaitStatus(run, "running");
    AppviewTestServer appview = RunnerAccountResource.appview();
    int refusedBefore = appview.refused();
    appview.failNext(2);
    publish(run.output(log, 0, part, 300));
    await().atMost(DEADLINE).until(() -> appview.refused() == refusedBefore + 2);
    await().atMost(DEADLINE).until(() -> sentUpTo(run) >= part);
    List<RunEvent> rest = new ArrayList<>(run.output(log, part, log.length, 2000));
    rest.add(run.ended(log.length));
    publish(rest);
    awaitStatus(run, "success");
    assertPiecesAreTheLogInOrder(run, log);
  }

  @Test
  void anEventThatCannotBeReadGoesToTheDeadLetterTopicWithItsReasonAndTheNextRunIsFiled()
      throws Exception {
    Properties p = new Properties();
    KafkaBrokerResource.testClient(p);
    String garbageKey = "garbage-" + UUID.randomUUID();
    String v2Key = "v2-" + UUID.randomUUID();
    try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      producer.send(new ProducerRecord<>(Topics.RUN_EVENTS, garbageKey, "{not json"));
      producer.send(
          new ProducerRecord<>(
              Topics.RUN_EVENTS,
              v2Key,
              "{\"v\":\"2.0\",\"type\":\"ended\",\"checkKey\":\"" + v2Key + "\"}"));
      producer.flush();
    }
    Run run = queued("after-dead-letters");
    byte[] log = "one line\n".getBytes(StandardCharsets.UTF_8);
    List<RunEvent> all = new ArrayList<>();
    all.add(run.filed());
    all.add(run.started());
    all.addAll(run.output(log, 0, log.length, 100));
    all.add(run.ended(log.length));
    publish(all);
    awaitStatus(run, "success");

    Properties c = new Properties();
    KafkaBrokerResource.testClient(c);
    c.put("group.id", "dead-letter-reader-" + UUID.randomUUID());
    c.put("auto.offset.reset", "earliest");
    java.util.Map<String, String> dead = new java.util.HashMap<>();
    try (var consumer =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(
            c,
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.StringDeserializer())) {
      consumer.subscribe(List.of(Topics.RUN_EVENTS_DEAD));
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while ((!dead.containsKey(garbageKey) || !dead.containsKey(v2Key))
          && System.nanoTime() < deadline) {
        for (var r : consumer.poll(Duration.ofMillis(500))) {
          dead.put(r.key(), r.value());
        }
      }
    }
    assertTrue(dead.containsKey(garbageKey), "dead letters: " + dead);
    JsonNode garbage =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(dead.get(garbageKey));
    assertEquals("{not json", garbage.path("value").asText());
    assertTrue(garbage.path("reason").asText().startsWith("not a run event"), garbage.toString());
    JsonNode v2 = new com.fasterxml.jackson.databind.ObjectMapper().readTree(dead.get(v2Key));
    assertTrue(v2.path("reason").asText().contains("version 2.0"), v2.toString());
  }

  @Test
  void metricsShowLagAndPdsRequestsAndReadinessShowsKafkaAndThePds() throws Exception {
    Run run = queued("metrics");
    publish(List.of(run.filed(), run.started()));
    awaitStatus(run, "running");
    String metrics =
        given()
            .port(ManagementPort.get())
            .get("/q/metrics")
            .then()
            .statusCode(200)
            .extract()
            .asString();
    assertTrue(metrics.contains("knotless_run_check_writer_lag_seconds_count"), metrics);
    assertTrue(
        metrics.contains(
            "knotless_run_pds_requests_total{method=\"com.atproto.repo.putRecord\",outcome=\"ok\"}"),
        metrics);
    for (String line : metrics.split("\n")) {
      if (line.startsWith("knotless_run_check_writer_lag_seconds")) {
        System.out.println("[CheckWriterIT] " + line);
      }
    }
    String ready =
        given()
            .port(ManagementPort.get())
            .get("/q/health/ready")
            .then()
            .statusCode(200)
            .extract()
            .asString();
    assertTrue(ready.contains("run-events"), ready);
    assertTrue(ready.contains("\"pds\""), ready);
  }

  @Test
  void healthAndMetricsAnswerOnTheManagementPortAndNotOnTheServicePort() {
    int management = ManagementPort.get();
    assertTrue(management != io.restassured.RestAssured.port, "a port of its own");
    for (String path : List.of("/q/health/live", "/q/health/ready", "/q/metrics")) {
      given().port(management).get(path).then().statusCode(200);
      given().get(path).then().statusCode(404);
    }
  }

  /** Queues a run as a reconciler does, so the check-writer knows it. */
  private Run queued(String workflow) throws Exception {
    return CheckWriterFixture.queued(db, workflow);
  }

  private long keptLogLength(Run run) throws Exception {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement("select log_length from check_run where check_key = ?")) {
      s.setString(1, run.key);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? r.getLong(1) : -1;
      }
    }
  }

  private void assertPiecesAreTheLogInOrder(Run run, byte[] log) {
    List<Received> pieces =
        RunnerAccountResource.appview().received(run.uri()).stream()
            .filter(p -> !p.text().isEmpty() || p.ended())
            .toList();
    StringBuilder joined = new StringBuilder();
    long expected = 0;
    for (Received p : pieces) {
      if (p.text().isEmpty()) {
        continue;
      }
      assertEquals(expected, p.offset(), "each piece starts where the last one ended");
      assertServiceToken(p.authorization());
      int bytes = p.text().getBytes(StandardCharsets.UTF_8).length;
      assertTrue(bytes <= 16_000, "a piece of " + bytes + " bytes");
      expected += bytes;
      joined.append(p.text());
    }
    assertEquals(new String(log, StandardCharsets.UTF_8), joined.toString());
    assertTrue(pieces.get(pieces.size() - 1).ended(), "the last send says the run ended");
    assertTrue(joined.indexOf("hunter2") < 0, "the secret never reaches the appview");
    System.out.printf("[CheckWriterIT] %s: %d pieces to the appview%n", run.key, pieces.size());
  }
}
