package dev.knotless.runner.schedule;

import static dev.knotless.runner.schedule.Runs.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SchedulerSupersedeTest {

  private static final String A = "did:plc:alice";

  private static Runs ci(String id, String ref, String commit) {
    return run(id).owner(A).repo("site").at(ref, commit).cls(RunClass.MAIN);
  }

  private static Runs deploy(String id, String commit) {
    return ci(id, "refs/heads/main", commit).workflow("deploy").finish();
  }

  @Test
  void aNewerCommitsRunCancelsTheOlderWaitingOrRunning() {
    Harness h = Harness.jobs(1);
    h.submitAll(ci("r1", "refs/heads/main", "c1"));
    h.admit();
    h.submitAll(ci("r2", "refs/heads/main", "c2").workflow("lint"));
    List<Decision> d = h.submit(ci("r3", "refs/heads/main", "c3"));
    assertEquals(List.of(new Decision.Cancel("r1", true, CancelReason.SUPERSEDED)), d);
    List<Decision> d2 = h.submit(ci("r4", "refs/heads/main", "c4").workflow("lint"));
    assertEquals(List.of(new Decision.Cancel("r2", false, CancelReason.SUPERSEDED)), d2);
    h.scheduler.finished("r1", 500, h.now);
    assertEquals(List.of("r3"), h.admit(), "the job of the cancelled run is free once it ended");
  }

  @Test
  void aFullRerunOfTheSameCommitLeavesTheOlderRunGoing() {
    Harness h = Harness.jobs(2);
    h.submitAll(ci("r1", "refs/heads/main", "c1"));
    h.admit();
    assertEquals(List.of(), h.submit(ci("r2", "refs/heads/main", "c1")));
    assertEquals(List.of("r2"), h.admit());
  }

  @Test
  void aRunAskedByNameCancelsThePreviousRunOfThatWorkflowAtTheSameCommit() {
    Harness h = Harness.jobs(2);
    h.submitAll(ci("r1", "refs/heads/main", "c1").workflow("suite"));
    h.admit();
    List<Decision> d =
        h.submit(ci("r2", "refs/heads/main", "c1").workflow("suite").cls(RunClass.ASKED));
    assertEquals(List.of(new Decision.Cancel("r1", true, CancelReason.ASKED_AGAIN)), d);
  }

  @Test
  void runsOnDifferentRefsAreLeftToFinish() {
    Harness h = Harness.jobs(2);
    h.submitAll(ci("r1", "refs/heads/main", "c1"));
    assertEquals(List.of(), h.submit(ci("r2", "refs/heads/other", "c2")));
  }

  @Test
  void batchesOnOneBranchNeverSupersedeEachOther() {
    Harness h = Harness.jobs(2);
    h.submitAll(run("b1").owner(A).repo("site").batch("refs/heads/main", "t1").cls(RunClass.MAIN));
    assertEquals(
        List.of(),
        h.submit(
            run("b2").owner(A).repo("site").batch("refs/heads/main", "t2").cls(RunClass.LATER)),
        "the batch built ahead runs beside the one still checking");
  }

  @Test
  void deploysGoOutInCommitOrderWithAtMostOneWaiting() {
    Harness h = Harness.jobs(4);
    assertEquals(List.of(new Decision.Kept("d1")), h.submit(deploy("d1", "c1")));
    assertEquals(List.of("d1"), h.admit());
    assertEquals(List.of(), h.submit(deploy("d2", "c2")), "the kept run is not cancelled");
    assertEquals(List.of(), h.admit());
    assertEquals(WaitReason.TURN, h.reasonOf("d2"));
    List<Decision> third = h.submit(deploy("d3", "c3"));
    assertEquals(List.of(new Decision.Cancel("d2", false, CancelReason.SUPERSEDED)), third);
    List<Decision> fourth = h.submit(deploy("d4", "c4"));
    assertEquals(List.of(new Decision.Cancel("d3", false, CancelReason.SUPERSEDED)), fourth);
    assertEquals(1, h.scheduler.waitingCount(), "at most one deploy waits");

    h.scheduler.finished("d1", 60_000, h.now);
    assertEquals(List.of(), h.admit(), "the turn is held until d1's check is filed as ended");
    assertEquals(Optional.of(new Decision.Kept("d4")), h.scheduler.fileEnded("d1"));
    assertEquals(List.of("d4"), h.admit(), "the newest commit is the next to go");
    assertEquals(List.of(), h.submit(deploy("d5", "c5")), "d4 now holds the turn and is kept");
  }

  @Test
  void aFinishRunTakesTheTurnAsItIsFiledSoItIsKeptWhileItWaitsForAJob() {
    Harness h = Harness.jobs(1);
    h.submitAll(ci("busy", "refs/heads/other", "x1"));
    h.admit();
    h.submitAll(deploy("d1", "c1"));
    assertEquals(List.of(), h.submit(deploy("d2", "c2")), "d1 is kept though not started");
    h.end("busy");
    assertEquals(List.of("d1"), h.admit());
  }

  @Test
  void aKeptRunOnAPullIsStillCancelledWhenThePullMoves() {
    Harness h = Harness.jobs(2);
    Runs p1 = run("p1").owner(A).repo("site").pullAt("at://pull/1", "h1 b1").finish();
    h.submit(p1.cls(RunClass.OTHER));
    h.admit();
    List<Decision> d =
        h.submit(
            run("p2")
                .owner(A)
                .repo("site")
                .pullAt("at://pull/1", "h2 b1")
                .finish()
                .cls(RunClass.OTHER));
    assertEquals(List.of(new Decision.Cancel("p1", true, CancelReason.PULL_MOVED)), d);
  }

  @Test
  void aSecondCancelNeverOverwritesTheFirstReason() {
    Harness h = Harness.jobs(1);
    h.submitAll(deploy("d1", "c1"));
    h.admit();
    assertTrue(h.scheduler.cancel("d1", CancelReason.STOP).isPresent());
    assertEquals(Optional.empty(), h.scheduler.cancel("d1", CancelReason.BATCH_DROPPED));
  }

  @Test
  void aCancelledWaitingDeployHoldsItsTurnUntilItsCheckIsFiled() {
    Harness h = Harness.jobs(2);
    h.submitAll(ci("busy", "refs/heads/other", "x1"), ci("busy2", "refs/heads/x", "x1"));
    h.admit();
    h.submitAll(deploy("d1", "c1"), deploy("d2", "c2"));
    h.scheduler.cancel("d1", CancelReason.STOP);
    h.end("busy");
    assertEquals(List.of(), h.admit(), "d2 waits until d1 is filed cancelled");
    h.scheduler.fileEnded("d1");
    assertEquals(List.of("d2"), h.admit());
  }

  @Test
  void aRunIdSubmittedTwiceIsRefused() {
    Harness h = Harness.jobs(1);
    h.submitAll(ci("r1", "refs/heads/main", "c1"));
    var e =
        assertThrows(IllegalArgumentException.class, () -> h.submit(ci("r1", "refs/heads/x", "c")));
    assertEquals("run r1 is already submitted", e.getMessage());
  }
}
