package dev.knotless.run.ingester;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.run.ingester.DoorbellTopic.Bell;
import dev.knotless.run.testkit.KafkaBrokerResource;
import dev.knotless.run.testkit.ManagementPort;
import dev.knotless.runner.doorbell.DoorMatcher;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WebSocketSource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

@WithTestResource(
    value = KafkaBrokerResource.class,
    scope = TestResourceScope.GLOBAL,
    initArgs = @ResourceArg(name = "user", value = "ingester"))
@WithTestResource(value = PdsResource.class, scope = TestResourceScope.MATCHING_RESOURCES)
@QuarkusTest
class IngesterIT {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final ObjectNode REF_VALUE =
      JsonNodeFactory.instance.objectNode().put("target", "0".repeat(40)).put("generation", 1);
  private static final Doorbell FRAME_REF = Doorbell.frame(DoorMatcher.REF);
  private static final Doorbell CONNECT = Doorbell.connect("firehose");

  @Inject WebSocketSource source;

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  @Test
  void connectingPublishesOneDoorbellPerWatchedRepository() {
    Set<String> watched = keys(PdsResource.watched());
    try (DoorbellTopic topic = new DoorbellTopic(bootstrap, DEADLINE)) {
      List<Bell> bells =
          topic.until(
              DEADLINE,
              "connect doorbell for every watched repository",
              seen -> of(seen, CONNECT).containsAll(watched));
      int connections = source.connections();
      for (String key : watched) {
        long rung =
            bells.stream().filter(b -> b.key().equals(key) && b.reason().equals(CONNECT)).count();
        assertEquals(connections, rung, key + " must ring once per connection");
      }
      assertEquals(watched, of(bells, CONNECT), "connecting rings watched doors only");
    }
  }

  @Test
  void aRefWrittenToTheOwnersPdsBecomesAFrameDoorbellKeyedByTheRepository() throws Exception {
    RepoId lib = PdsResource.watched().get(1);
    try (DoorbellTopic topic = new DoorbellTopic(bootstrap, DEADLINE)) {
      long written = System.nanoTime();
      owner()
          .applyWrites(
              lib.ownerDid(),
              List.of(
                  Write.create(DoorMatcher.REF, lib.recordKeyPrefix() + Tid.next(), REF_VALUE)));
      topic.until(
          DEADLINE,
          "frame doorbell for " + lib,
          seen -> of(seen, FRAME_REF).contains(lib.toString()));
      System.out.printf(
          "[IngesterIT] applyWrites to frame doorbell on the topic in %d ms%n",
          (System.nanoTime() - written) / 1_000_000);
    }
  }

  @Test
  void aWriteUnderAnUnwatchedKeyPublishesNothingForIt() throws Exception {
    RepoId app = PdsResource.watched().get(0);
    RepoId unwatched = new RepoId(app.ownerDid(), Tid.next());
    XrpcClient client = owner();
    try (DoorbellTopic topic = new DoorbellTopic(bootstrap, DEADLINE)) {
      client.applyWrites(
          app.ownerDid(),
          List.of(
              Write.create(DoorMatcher.REF, unwatched.recordKeyPrefix() + Tid.next(), REF_VALUE)));
      // A later write to a watched repository marks the point by which the first was handled:
      // the firehose delivers one account's commits in order.
      String marker = app.recordKeyPrefix() + Tid.next();
      client.applyWrites(
          app.ownerDid(), List.of(Write.create(DoorMatcher.RERUN, marker, REF_VALUE)));
      List<Bell> bells =
          topic.until(
              DEADLINE,
              "the marker's rerun doorbell",
              seen -> of(seen, Doorbell.frame(DoorMatcher.RERUN)).contains(app.toString()));
      Set<String> keys = bells.stream().map(Bell::key).collect(Collectors.toSet());
      assertTrue(
          keys.stream().noneMatch(k -> k.equals(unwatched.toString())),
          "a doorbell was published for the unwatched " + unwatched + ": " + bells);
      assertTrue(keys(PdsResource.watched()).containsAll(keys), "only watched keys: " + keys);
    }
  }

  @Test
  void aPullAStateAndAQueueRecordSomeoneElseWritesUnderAWatchedKeyEachRingThatRepository()
      throws Exception {
    RepoId app = PdsResource.watched().get(0);
    dev.knotless.testing.Account author = PdsResource.pds().createAccount("author");
    XrpcClient client = XrpcClient.create(PdsResource.pds().pdsUrl());
    client.login(author.handle(), author.password());
    ObjectNode value = JsonNodeFactory.instance.objectNode().put("title", "a change");
    try (DoorbellTopic topic = new DoorbellTopic(bootstrap, DEADLINE)) {
      for (String collection : List.of(DoorMatcher.PULL, DoorMatcher.STATE, DoorMatcher.QUEUE)) {
        client.applyWrites(
            author.did(),
            List.of(Write.create(collection, app.recordKeyPrefix() + Tid.next(), value)));
        topic.until(
            DEADLINE,
            collection + " doorbell for " + app,
            seen -> of(seen, Doorbell.frame(collection)).contains(app.toString()));
      }
    }
  }

  @Test
  void theSweepRingsEveryWatchedRepositoryAgain() {
    Set<String> watched = keys(PdsResource.watched());
    try (DoorbellTopic topic = new DoorbellTopic(bootstrap, DEADLINE)) {
      topic.until(
          DEADLINE, "sweep doorbells", seen -> of(seen, Doorbell.SWEEP).containsAll(watched));
    }
  }

  @Test
  void readinessShowsKafkaAndTheOpenSourceAndMetricsCountDoorbellsByReason() {
    try (DoorbellTopic topic = new DoorbellTopic(bootstrap, DEADLINE)) {
      topic.until(DEADLINE, "any connect doorbell", seen -> !of(seen, CONNECT).isEmpty());
    }
    given()
        .port(ManagementPort.get())
        .get("/q/health/ready")
        .then()
        .statusCode(200)
        .body(containsString("event-source"))
        .body(containsString("FirehoseSource"))
        .body(containsString("SmallRye Reactive Messaging"));
    given()
        .port(ManagementPort.get())
        .get("/q/metrics")
        .then()
        .statusCode(200)
        .body(containsString("knotless_run_doorbells_published_total{reason=\"connect\""));
  }

  @Test
  void healthAndMetricsAnswerOnTheManagementPortAndNotOnTheServicePort() {
    int management = ManagementPort.get();
    assertNotEquals(io.restassured.RestAssured.port, management, "a port of its own");
    for (String path : List.of("/q/health/live", "/q/health/ready", "/q/metrics")) {
      given().port(management).get(path).then().statusCode(200);
      given().get(path).then().statusCode(404);
    }
  }

  private static XrpcClient owner() throws Exception {
    XrpcClient client = XrpcClient.create(PdsResource.pds().pdsUrl());
    client.login(PdsResource.owner().handle(), PdsResource.owner().password());
    return client;
  }

  private static Set<String> of(List<Bell> bells, Doorbell reason) {
    return bells.stream()
        .filter(b -> b.reason().equals(reason))
        .map(Bell::key)
        .collect(Collectors.toSet());
  }

  private static Set<String> keys(List<RepoId> repos) {
    return repos.stream().map(RepoId::toString).collect(Collectors.toSet());
  }
}
