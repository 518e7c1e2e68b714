package dev.knotless.run.reconciler;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.testkit.KafkaBrokerResource;
import dev.knotless.run.testkit.ManagementPort;
import dev.knotless.run.testkit.PostgresResource;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.plan.RunOrder;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.state.pg.PgRunQueue;
import dev.knotless.testing.infra.OwnerRepo;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The real pass end to end: an owner pushes to the real PDS, a doorbell arrives on the real broker,
 * and the reconciler files the check in the runner's account, queues the run in PostgreSQL with its
 * order for the scheduler and publishes its {@code filed} event for the check-writer.
 */
@WithTestResource(
    value = KafkaBrokerResource.class,
    scope = TestResourceScope.GLOBAL,
    initArgs = @ResourceArg(name = "user", value = "reconciler"))
@WithTestResource(value = PostgresResource.class, scope = TestResourceScope.GLOBAL)
@WithTestResource(value = OwnerPdsResource.class, scope = TestResourceScope.RESTRICTED_TO_CLASS)
@QuarkusTest
class PushQueuesRunIT {
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  @Inject PgRunQueue queue;

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  @Test
  void aPushAfterTheBaselineIsFiledQueuedAndItsRunQueuedWithItsOrderForTheScheduler()
      throws Exception {
    OwnerRepo owner = OwnerPdsResource.owner();
    RepoId repo = new RepoId(owner.account.did(), owner.key());

    // The first doorbell reads the repository as it is: the commit pushed before it, whose
    // workflow runs on pushes to main, is the baseline and is not run.
    ring(repo, Doorbell.frame("dev.knotless.ref"));
    await().atMost(DEADLINE).until(() -> passesOk() >= 1);
    assertEquals(List.of(), queued(owner.account.did()), "the baseline queues nothing");
    assertEquals(List.of(), checks(), "the baseline files no check");
    // The pass read the repository record and its refs from the owner's PDS, and says so.
    assertTrue(pdsRequests("com.atproto.repo.getRecord", "ok") >= 1, metrics());
    assertTrue(pdsRequests("com.atproto.repo.listRecords", "ok") >= 1, metrics());

    String sha = owner.commit(Map.of("README.md", "hello again\n"));
    owner.push("main");
    long t0 = System.nanoTime();
    ring(repo, Doorbell.frame("dev.knotless.ref"));

    await().atMost(DEADLINE).until(() -> checks().size() == 1);
    Record filed = checks().get(0);
    CheckRecord check = CheckRecord.fromJson(filed.value());
    assertEquals(CheckStatus.QUEUED, check.status(), String.valueOf(check));
    assertEquals(sha, check.commit());
    assertEquals("ci", check.workflow());

    // The run waits in the queue with its order, for the scheduler; the check-writer learns of it.
    await().atMost(DEADLINE).until(() -> queued(owner.account.did()).size() == 1);
    PgRunQueue.Run row = queued(owner.account.did()).get(0).run();
    assertEquals(filed.rkey(), row.checkKey());
    assertEquals(sha, row.commit());
    RunOrder order = RunOrder.fromJson(row.order());
    assertEquals(sha, order.commit());
    assertEquals("ci", order.workflow());
    assertEquals(filed.rkey(), order.checkKey());
    assertTrue(!row.order().contains(OwnerPdsResource.TOKEN), "the order carries no secret");
    RunEvent first = Outputs.firstEvent(filed.rkey(), DEADLINE);
    System.out.printf(
        "[PushQueuesRunIT] doorbell to run queued in %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    assertTrue(first instanceof RunEvent.Filed, first.toString());
    RunEvent.Filed f = (RunEvent.Filed) first;
    assertEquals(sha, f.commit());
    assertEquals(check.repo(), f.repoUri(), "the check-writer files the same repository");
    // Nothing runs here: the row is held by no one, its run the scheduler's.
    assertEquals(null, queued(owner.account.did()).get(0).worker());
    assertTrue(
        pdsRequests("com.atproto.repo.putRecord", "ok") >= 1,
        "filing the check queued is counted too: " + metrics());
  }

  private double passesOk() {
    return metric("knotless_run_passes_total{outcome=\"ok\"");
  }

  private double pdsRequests(String method, String outcome) {
    return metric(
        "knotless_run_pds_requests_total{method=\"" + method + "\",outcome=\"" + outcome + "\"");
  }

  /** The first sample whose line starts with {@code prefix}, or 0. */
  private double metric(String prefix) {
    for (String line : metrics().split("\n")) {
      if (line.startsWith(prefix)) {
        // An exemplar (" # {trace_id=…} 1.0 <time>") may follow the value once OpenTelemetry is in.
        String sample = line.contains(" # ") ? line.substring(0, line.indexOf(" # ")) : line;
        return Double.parseDouble(sample.substring(sample.lastIndexOf(' ') + 1));
      }
    }
    return 0;
  }

  private static String metrics() {
    return given().port(ManagementPort.get()).get("/q/metrics").then().extract().asString();
  }

  private static List<Record> checks() throws Exception {
    return Outputs.checks(OwnerPdsResource.runner().did());
  }

  private List<PgRunQueue.Row> queued(String ownerDid) throws Exception {
    List<PgRunQueue.Row> out = new ArrayList<>();
    for (RunClass c : RunClass.values()) {
      for (PgRunQueue.Row r : queue.waiting(c)) {
        if (r.run().ownerDid().equals(ownerDid)) {
          out.add(r);
        }
      }
    }
    return out;
  }

  private void ring(RepoId repo, Doorbell bell) throws Exception {
    Outputs.ring(repo, bell);
    assertTrue(bootstrap != null);
  }
}
