package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.MergeGateIT.tip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merge queue across a stop, a kill and a start of its runner ({@code --pulls --queue}, the
 * docker executor): a batch that passed lands once, one cut off runs again and lands once, with the
 * runner's state in its file or in PostgreSQL.
 */
@WithPds
class QueueRestartIT {

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  @Test
  void aBatchThatPassedBeforeAStopLandsOnceAtTheNextStartAndOneThatLandedIsAdopted(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (QueueSetup q = new QueueSetup(pds, tmp, "true")) {
      q.open(3, Set.of());
      q.queueAll();
      long before = q.generation();
      // The runner stopped after the batch passed and before it pushed.
      String tip = q.passedAtStop();
      q.start();
      RunnerHarness.await(
          "the batch to land",
          () -> {
            try {
              return q.merged().size() == 3;
            } catch (Exception e) {
              return false;
            }
          });
      q.awaitIdle();
      assertEquals(tip, tip(pds, q.repo, "main"), "main is at the tip that passed");
      assertEquals(before + 1, q.generation(), "one push");
      assertTrue(q.batchChecks().isEmpty(), "a batch that passed is not run again");
      q.runner.started().get(0).stop();

      // The runner was killed after the push and before its state said so: the next start
      // finds main at the batch's tip, and adopts it rather than pushing or marking it again.
      q.passedAtStop();
      q.start();
      q.awaitIdle();
      assertEquals(before + 1, q.generation(), "not pushed again");
      assertEquals(3, q.mergedRecords(), "each pull marked merged once");
      assertTrue(q.batchChecks().isEmpty());
    }
  }

  /**
   * The second after which the gated builds pass: a build started before it is still going when the
   * test stops or kills the runner, and one started after it passes. Making the repository through
   * to a running batch takes 3 to 8 s here; the gate leaves room for a machine several times
   * slower.
   */
  private record Gate(long until) {
    static Gate in30Seconds() {
      return new Gate(java.time.Instant.now().plusSeconds(30).getEpochSecond());
    }

    /** The step that waits for the gate. */
    String step() {
      return "while [ $(date +%s) -lt " + until + " ]; do sleep 1; done";
    }

    /** Asserts the gate is still shut, and prints how long before it the cut came. */
    void assertShut(String message) {
      long now = java.time.Instant.now().getEpochSecond();
      assertTrue(now < until, message);
      System.out.printf("[QueueRestartIT] cut off %d s before the gate%n", until - now);
    }

    void awaitOpen() throws InterruptedException {
      while (java.time.Instant.now().getEpochSecond() <= until) {
        Thread.sleep(200);
      }
    }
  }

  @Test
  void withItsStateInPostgresARunnerKeepsABatchCutOffByAStopAndLandsItOnceAfterAStart(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (dev.knotless.testing.infra.EmbeddedPg pg = dev.knotless.testing.infra.EmbeddedPg.start()) {
      // Set once PostgreSQL is up, so its start does not eat into the gate.
      gatedByPostgres(pds, tmp, pg, Gate.in30Seconds());
    }
  }

  private void gatedByPostgres(
      PdsInstance pds, Path tmp, dev.knotless.testing.infra.EmbeddedPg pg, Gate gate)
      throws Exception {
    try (QueueSetup q = new QueueSetup(pds, tmp, gate.step())) {
      q.runner.extraEnv.put(dev.knotless.runner.cli.RunnerOptions.STATE_DB_USER, "postgres");
      q.runner.extraEnv.put(dev.knotless.runner.cli.RunnerOptions.STATE_DB_PASSWORD, "postgres");
      q.db = dev.knotless.runner.state.pg.PgStateStores.open(pg.jdbcUrl(), "postgres", "postgres");
      String key = q.repo.account.did() + "/" + q.repo.key();
      q.open(2, Set.of());
      long before = q.generation();
      q.queueAll();
      q.start("--state-db", pg.jdbcUrl(), "--stop-wait", "0");
      RunnerHarness.await(
          "the batch to be running",
          () -> {
            try {
              return q.batchChecks().values().stream()
                  .anyMatch(c -> c.status() == CheckStatus.RUNNING);
            } catch (Exception e) {
              return false;
            }
          });
      q.runner.started().get(0).stop();
      gate.assertShut("stopped before it passed");
      assertFalse(java.nio.file.Files.exists(q.runner.state()), "no state file was written");
      String cut = q.batchChecks().values().iterator().next().commit();
      dev.knotless.runner.queue.QueueState kept =
          q.db.load(key).orElseThrow().queues().get(QueueSetup.MAIN);
      assertEquals(1, kept.running().size(), String.valueOf(kept));
      assertEquals(cut, kept.running().get(0).tip(), "the database holds the batch at its tip");
      assertEquals(
          dev.knotless.runner.queue.QueueState.Status.CHECKING, kept.running().get(0).status());
      assertEquals(q.pulls, kept.running().get(0).pulls().stream().map(p -> p.uri()).toList());
      gate.awaitOpen();
      q.start("--state-db", pg.jdbcUrl());
      RunnerHarness.await(
          "both pulls merged",
          () -> {
            try {
              return q.merged().size() == 2;
            } catch (Exception e) {
              return false;
            }
          });
      q.awaitIdle();
      assertEquals(cut, tip(pds, q.repo, "main"), "the kept batch landed");
      assertEquals(before + 1, q.generation(), "landed once");
      assertEquals(2, q.mergedRecords(), "each pull marked merged once");
      assertEquals(
          1, q.db.load(key).orElseThrow().queues().get(QueueSetup.MAIN).lastId(), "no new batch");
    }
  }

  @Test
  void aRunnerProcessKilledMidBatchRunsTheBatchAgainAtTheNextStartAndLandsItOnce(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Gate gate = Gate.in30Seconds();
    try (QueueSetup q = new QueueSetup(pds, tmp, gate.step())) {
      q.open(2, Set.of());
      long before = q.generation();
      q.queueAll();
      Process p =
          StopAndStartIT.spawn(
              q.runner, q.repo, List.of("--executor", "docker", "--pulls", "--queue"));
      CheckRecord cut;
      try {
        RunnerHarness.await(
            "the batch to be running in the runner's process",
            () -> {
              try {
                return q.batchChecks().values().stream()
                    .anyMatch(c -> c.status() == CheckStatus.RUNNING);
              } catch (Exception e) {
                return false;
              }
            });
        p.destroyForcibly(); // SIGKILL: no stop procedure runs, the container is left
        assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
      } finally {
        p.destroyForcibly();
      }
      cut = q.batchChecks().values().iterator().next();
      assertEquals(CheckStatus.RUNNING, cut.status(), "the kill left the batch's check running");
      gate.assertShut("killed before it passed");
      assertEquals(before, q.generation(), "nothing landed");
      gate.awaitOpen();
      q.start();
      RunnerHarness.await(
          "both pulls merged",
          () -> {
            try {
              return q.merged().size() == 2;
            } catch (Exception e) {
              return false;
            }
          });
      q.awaitIdle();
      Map<String, CheckRecord> batches = q.batchChecks();
      assertEquals(1, batches.size(), "the same batch, at the same tip and base: " + batches);
      CheckRecord again = batches.values().iterator().next();
      assertEquals(CheckStatus.SUCCESS, again.status(), String.valueOf(again));
      assertEquals(cut.commit(), again.commit());
      assertEquals(cut.commit(), tip(pds, q.repo, "main"));
      assertEquals(before + 1, q.generation(), "landed once");
      assertEquals(2, q.mergedRecords(), "each pull marked merged once");
    }
  }

  @Test
  void aBatchCutOffByAStopRunsAgainAtTheNextStartAndLandsOnce(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    // The build passes only once the clock is past a moment the test sets: the first run is
    // still going when the runner stops, and the run after the start passes.
    Gate gate = Gate.in30Seconds();
    String wait = gate.step();
    try (QueueSetup q = new QueueSetup(pds, tmp, wait)) {
      // A second workflow, and one job: one of the batch's runs waits, and the stop drops it.
      q.repo.commit(
          Map.of(
              ".knotless/workflows/lint.yml",
              "on: {pull: {base: [refs/heads/main]}}\n"
                  + "image: knotless-test/busybox:1\n"
                  + "steps: [{name: lint, run: '"
                  + wait
                  + "'}]\n"));
      q.repo.push("main");
      q.open(2, Set.of());
      long before = q.generation();
      q.queueAll();
      q.start("--stop-wait", "0", "--jobs", "1");
      RunnerHarness.await(
          "the batch to be running",
          () -> {
            try {
              return q.batchChecks().values().stream()
                  .anyMatch(c -> c.status() == CheckStatus.RUNNING);
            } catch (Exception e) {
              return false;
            }
          });
      q.runner.started().get(0).stop();
      gate.assertShut("the stop came before the build passed");
      CheckRecord cut = q.batchChecks().values().iterator().next();
      // Cancelled, or error when the stop came as its container was starting: cut off, either way.
      assertTrue(cut.status().ended() && cut.status() != CheckStatus.SUCCESS, String.valueOf(cut));
      assertEquals(before, q.generation(), "nothing landed");
      assertEquals(
          List.of(QueueSetup.MAIN_BATCH),
          q.droppedSubjects(),
          "the stop dropped the batch's waiting run");
      gate.awaitOpen();
      q.start();
      RunnerHarness.await(
          "both pulls merged",
          () -> {
            try {
              return q.merged().size() == 2;
            } catch (Exception e) {
              return false;
            }
          });
      q.awaitIdle();
      Map<String, CheckRecord> batches = q.batchChecks();
      assertEquals(2, batches.size(), "the same batch, at the same tip and base: " + batches);
      for (CheckRecord again : batches.values()) {
        assertEquals(CheckStatus.SUCCESS, again.status());
        assertEquals(cut.commit(), again.commit());
      }
      assertEquals(cut.commit(), tip(pds, q.repo, "main"));
      assertEquals(before + 1, q.generation(), "landed once");
      assertEquals(2, q.mergedRecords(), "each pull marked merged once");
      assertEquals(List.of(), q.droppedSubjects(), "the batch's dropped run is not kept");
    }
  }
}
