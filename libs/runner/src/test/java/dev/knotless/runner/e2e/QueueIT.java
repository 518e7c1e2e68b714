package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.MergeGateIT.tip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.mergequeue.QueuePass;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merge queue on a real runner ({@code --pulls --queue}, the docker executor) logged in as the
 * repository's owner: queued pulls stacked in batches, checked once at the batch's tip, landed in
 * one push each, a failing batch halved until the pull that broke it is ejected, a direct push
 * under a running batch making it be rebuilt rather than land stale, and the next batch built
 * ahead.
 */
@WithPds
class QueueIT {

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  @Test
  void eightPullsWithTheFifthBrokenLandSevenInCheckedPushesAndEjectTheFifthInFiveBatchRuns(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    long started = System.nanoTime();
    try (QueueSetup q = new QueueSetup(pds, tmp, "test ! -e broken.txt")) {
      q.open(8, Set.of(5));
      long before = q.generation();
      q.queueAll();
      q.start();
      String broken = q.pulls.get(4);
      // Five batch runs and two landings one after another: more than one run's usual wait.
      RunnerHarness.await(
          java.time.Duration.ofMinutes(3),
          "7 pulls merged and the fifth ejected (merged so far: %s)",
          () -> {
            try {
              return q.merged().size() == 7
                  && q.runner.pullChecks(q.repo, broken).values().stream()
                      .anyMatch(c -> c.workflow().equals(QueuePass.EJECTED));
            } catch (Exception e) {
              return false;
            }
          },
          () -> {
            try {
              return String.valueOf(q.merged().size());
            } catch (Exception e) {
              return e.toString();
            }
          });
      q.awaitIdle();
      Set<String> merged = q.merged();
      assertFalse(merged.contains(broken), "the broken pull is not merged");
      assertEquals(7, merged.size());

      CheckRecord ejected =
          q.runner.pullChecks(q.repo, broken).values().stream()
              .filter(c -> c.workflow().equals(QueuePass.EJECTED))
              .findFirst()
              .orElseThrow();
      assertEquals(CheckStatus.FAILURE, ejected.status());
      assertTrue(
          ejected.note().startsWith("ejected from the merge queue: batch 1 failed, and halving it"),
          ejected.note());
      assertEquals(q.heads.get(broken), ejected.commit());

      // Bisection, not a run a pull: [1-8] fails, [1-4] lands, [5,6] fails, [5] is ejected,
      // [6-8] lands.
      Map<String, CheckRecord> batches = q.batchChecks();
      List<CheckRecord> passed =
          batches.values().stream().filter(c -> c.status() == CheckStatus.SUCCESS).toList();
      assertEquals(5, batches.size(), "five batch runs: " + batches.values());
      assertEquals(2, passed.size(), "two batches passed: " + batches.values());

      // Each push landed a batch's tip that was checked, and nothing else moved main.
      String main = tip(pds, q.repo, "main");
      assertEquals(before + passed.size(), q.generation(), "one push a passing batch");
      assertTrue(
          passed.stream().anyMatch(c -> c.commit().equals(main)),
          "main is at the tip of a batch that passed");
      for (CheckRecord c : passed) {
        String ancestors = q.mirror("rev-list", "--first-parent", main);
        assertTrue(ancestors.contains(c.commit()), "each passing tip is on main: " + c.commit());
      }
      String tree = q.mirror("ls-tree", "--name-only", main);
      for (int i = 1; i <= 8; i++) {
        assertEquals(i != 5, tree.contains("p" + i + ".txt"), "p" + i + " in " + tree);
      }
      assertFalse(tree.contains("broken.txt"), tree);
      System.out.printf(
          "QueueIT: 8 pulls, 1 broken: %d batch runs, %d pushes, %.1f s%n",
          batches.size(), passed.size(), (System.nanoTime() - started) / 1e9);
    }
  }

  @Test
  void aDirectPushUnderARunningBatchRebuildsItAndNothingStaleLands(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    // The batch's step waits for the test to push directly: it runs until a file is on main.
    try (QueueSetup q = new QueueSetup(pds, tmp, "test -e direct.txt || sleep 600")) {
      q.open(2, Set.of());
      long before = q.generation();
      q.queueAll();
      q.start();
      RunnerHarness.await(
          "the first batch to be running",
          () -> {
            try {
              return q.batchChecks().values().stream()
                  .anyMatch(c -> c.status() == CheckStatus.RUNNING);
            } catch (Exception e) {
              return false;
            }
          });
      String stale = q.batchChecks().values().iterator().next().commit();
      String direct = q.repo.commit(Map.of("direct.txt", "pushed past the queue\n"));
      q.repo.push("main");
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
      String main = tip(pds, q.repo, "main");
      assertNotEquals(stale, main, "the batch built on the old tip did not land");
      assertEquals(before + 2, q.generation(), "the direct push and one landing");
      assertTrue(
          q.mirror("rev-list", "--first-parent", main).contains(direct),
          "the batch was rebuilt on the direct push");
      CheckRecord staleCheck =
          q.batchChecks().values().stream()
              .filter(c -> c.commit().equals(stale))
              .findFirst()
              .orElseThrow();
      assertEquals(CheckStatus.CANCELLED, staleCheck.status(), String.valueOf(staleCheck));
      CheckRecord landed =
          q.batchChecks().values().stream()
              .filter(c -> c.commit().equals(main))
              .findFirst()
              .orElseThrow();
      assertEquals(CheckStatus.SUCCESS, landed.status());
      assertEquals(direct, landed.baseCommit());
    }
  }

  @Test
  void theLandingPushOfATrustedBatchTakesItsPassAndRunsNothing(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (QueueSetup q =
        new QueueSetup(pds, tmp, "echo ran", "{push: {}, pull: {base: [refs/heads/main]}}")) {
      q.open(2, Set.of());
      q.queueAll();
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
      String main = tip(pds, q.repo, "main");
      CheckRecord batch =
          q.batchChecks().values().stream()
              .filter(c -> c.commit().equals(main))
              .findFirst()
              .orElseThrow();
      assertEquals(CheckStatus.SUCCESS, batch.status());
      CheckRecord push =
          q.runner.awaitCheck(q.repo, QueueSetup.MAIN, main, "ci", c -> c.status().ended());
      assertEquals(CheckStatus.SUCCESS, push.status(), String.valueOf(push));
      assertTrue(
          push.note() != null && push.note().startsWith("took the pass of "),
          "the landing push took the batch's pass: " + push.note());
      assertTrue(push.note().contains("merge-queue batch 1 of refs/heads/main"), push.note());
      String log = new String(q.runner.log(push), java.nio.charset.StandardCharsets.UTF_8);
      assertTrue(log.contains("its result is taken and nothing is run again"), log);
      assertEquals(batch.steps(), push.steps(), "the batch's steps, not a run of its own");
    }
  }

  @Test
  void withDepthTwoTheNextBatchIsBuiltAheadOnTheOneCheckingAndLandsRightAfterIt(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (QueueSetup q = new QueueSetup(pds, tmp, "true")) {
      q.open(4, Set.of());
      long before = q.generation();
      q.queueAll();
      q.start("--batch", "2");
      RunnerHarness.await(
          "four pulls merged",
          () -> {
            try {
              return q.merged().size() == 4;
            } catch (Exception e) {
              return false;
            }
          });
      q.awaitIdle();
      List<CheckRecord> batches = new ArrayList<>(q.batchChecks().values());
      assertEquals(2, batches.size(), "two batches of two: " + batches);
      CheckRecord first =
          batches.stream().filter(c -> c.baseCommit().equals(q.base)).findFirst().orElseThrow();
      CheckRecord ahead = batches.stream().filter(c -> c != first).findFirst().orElseThrow();
      assertEquals(first.commit(), ahead.baseCommit(), "built on the tip of the one before");
      assertTrue(
          !ahead.createdAt().isAfter(first.endedAt()),
          "filed while the first was still checking: " + batches);
      assertEquals(ahead.commit(), tip(pds, q.repo, "main"));
      assertEquals(before + 2, q.generation(), "a push a batch");
      assertEquals(
          List.of(),
          q.batchChecks().values().stream()
              .filter(c -> c.status() != CheckStatus.SUCCESS)
              .toList());
    }
  }
}
