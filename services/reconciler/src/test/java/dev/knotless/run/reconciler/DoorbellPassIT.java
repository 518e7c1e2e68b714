package dev.knotless.run.reconciler;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.run.reconciler.app.QueueGauges;
import dev.knotless.run.testkit.KafkaBrokerResource;
import dev.knotless.run.testkit.ManagementPort;
import dev.knotless.run.testkit.PostgresResource;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.state.pg.PgRunQueue;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

@WithTestResource(
    value = KafkaBrokerResource.class,
    scope = TestResourceScope.GLOBAL,
    initArgs = @ResourceArg(name = "user", value = "reconciler"))
@WithTestResource(value = PostgresResource.class, scope = TestResourceScope.GLOBAL)
@QuarkusTest
@TestProfile(DoorbellPassIT.Recording.class)
class DoorbellPassIT {
  /** Passes are recorded instead of run: these tests are about the doorbell plumbing. */
  public static final class Recording implements QuarkusTestProfile {
    @Override
    public Set<Class<?>> getEnabledAlternatives() {
      return Set.of(RecordingPass.class);
    }
  }

  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @Inject RecordingPass passes;
  @Inject PgRunQueue queue;
  @Inject QueueGauges gauges;

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  @Test
  void aDoorbellPublishedBecomesOnePassWithItsReason() throws Exception {
    RepoId repo = new RepoId("did:plc:alice", "3kaaaaaaaaaa1");
    long t0 = System.nanoTime();
    Outputs.ring(repo, Doorbell.frame("dev.knotless.ref"));
    await().atMost(DEADLINE).until(() -> passes.of(repo).size() == 1);
    System.out.printf(
        "[DoorbellPassIT] doorbell to pass in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    assertEquals(Set.of(Doorbell.frame("dev.knotless.ref")), passes.of(repo).get(0).reasons());
  }

  @Test
  void ringsDuringAPassCoalesceIntoExactlyOneMorePass() throws Exception {
    RepoId repo = new RepoId("did:plc:bob", "3kbbbbbbbbbb1");
    passes.hold(repo);
    Outputs.ring(repo, Doorbell.SWEEP);
    await().atMost(DEADLINE).until(() -> passes.of(repo).size() == 1);
    for (int i = 0; i < 10; i++) {
      Outputs.ring(repo, i % 2 == 0 ? Doorbell.frame("dev.knotless.ref") : Doorbell.ASKED);
    }
    // The burst is on the topic before the pass is let go, so it is all one coalesced ring.
    await().atMost(DEADLINE).until(() -> received("asked") >= 5);
    passes.release(repo);
    await().atMost(DEADLINE).until(() -> passes.of(repo).size() >= 2);
    long settle = System.nanoTime() + Duration.ofSeconds(3).toNanos();
    while (System.nanoTime() < settle) {
      assertEquals(2, passes.of(repo).size(), "a burst must make exactly one more pass");
      Thread.sleep(100);
    }
    assertEquals(
        Set.of(Doorbell.frame("dev.knotless.ref"), Doorbell.ASKED),
        passes.of(repo).get(1).reasons());
  }

  @Test
  void aDoorbellAfterTheBrokerRestartsStillBecomesAPass() throws Exception {
    RepoId repo = new RepoId("did:plc:carol", "3kcccccccccc1");
    KafkaBrokerResource.broker().restart();
    long t0 = System.nanoTime();
    Outputs.ring(repo, Doorbell.connect("jetstream"));
    await().atMost(Duration.ofSeconds(120)).until(() -> passes.of(repo).size() == 1);
    System.out.printf(
        "[DoorbellPassIT] after a broker restart, doorbell to pass in %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
  }

  @Test
  void runsWaitingAreCountedByClassInTheMetrics() throws Exception {
    queue.file(waiting("k1.main", RunClass.MAIN, "c1"));
    queue.file(waiting("k2.pull", RunClass.OTHER, "c2"));
    // Filing the same check again leaves one run waiting.
    queue.file(waiting("k1.main", RunClass.MAIN, "c1"));
    assertEquals(1, queue.waiting(RunClass.MAIN).size());
    // A refresh may fall between two enqueues, so wait until it has seen both classes.
    await()
        .atMost(DEADLINE)
        .until(() -> gauges.waiting(RunClass.MAIN) == 1 && gauges.waiting(RunClass.OTHER) == 1);
    given()
        .port(ManagementPort.get())
        .get("/q/metrics")
        .then()
        .statusCode(200)
        .body(containsString("knotless_run_runs_waiting{class=\"main\",reason=\"job\"} 1.0"))
        .body(containsString("knotless_run_runs_waiting{class=\"other\",reason=\"job\"} 1.0"));
  }

  @Test
  void readinessReportsKafkaAndPostgres() {
    String body =
        given().port(ManagementPort.get()).get("/q/health/ready").then().extract().asString();
    assertTrue(body.contains("\"status\": \"UP\"") || body.contains("\"status\":\"UP\""), body);
    assertTrue(body.contains("Reactive Messaging") && body.contains("doorbells"), body);
    assertTrue(body.contains("Database connections health check"), body);
  }

  /** A run filed as waiting with no worker, so no worker runs or recovers it. */
  private static PgRunQueue.Run waiting(String checkKey, RunClass runClass, String commit) {
    return new PgRunQueue.Run(
        checkKey, "did:plc:dan/3kd", "did:plc:dan", runClass, "ci", commit, null, null, null);
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

  private double received(String reason) {
    String metrics =
        given().port(ManagementPort.get()).get("/q/metrics").then().extract().asString();
    for (String line : metrics.split("\n")) {
      if (line.startsWith("knotless_run_doorbells_received_total{reason=\"" + reason + "\"")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return 0;
  }
}
