package dev.knotless.runner.mergequeue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.filing.CheckFiler;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchChecksTest {

  private static final Instant T = Instant.parse("2026-12-05T10:00:00Z");

  private static CheckRecord check(String workflow, CheckStatus status, String note) {
    return new CheckRecord(
        "at://did:plc:owner/dev.knotless.repo/r",
        "refs/heads/main",
        "a".repeat(40),
        "b".repeat(40),
        null,
        workflow,
        status,
        T,
        null,
        T,
        List.of(),
        null,
        List.of(),
        note);
  }

  @Test
  void aRunEndedByATakeoverWithNoPodIsNoVerdictAndTheBatchRunsAgain() {
    assertEquals(
        BatchChecks.Ended.ENDED_UNFINISHED,
        BatchChecks.ended(
            List.of(
                check("ci", CheckStatus.SUCCESS, null),
                check("lint", CheckStatus.ERROR, CheckFiler.STALE_NOTE))));
  }

  @Test
  void anUnfinishedRunWaitsForTheOthersAndAFailureStillDecides() {
    assertEquals(
        BatchChecks.Ended.RUNNING,
        BatchChecks.ended(
            List.of(
                check("ci", CheckStatus.RUNNING, null),
                check("lint", CheckStatus.ERROR, CheckFiler.STALE_NOTE))));
    assertEquals(
        BatchChecks.Ended.FAILED,
        BatchChecks.ended(
            List.of(
                check("lint", CheckStatus.ERROR, CheckFiler.STALE_NOTE),
                check("ci", CheckStatus.FAILURE, null))));
    assertEquals(
        BatchChecks.Ended.FAILED,
        BatchChecks.ended(List.of(check("ci", CheckStatus.ERROR, "step 1 could not start"))));
  }

  @Test
  void aCancelledRunIsNoVerdictAndAllPassedIsPassed() {
    assertEquals(
        BatchChecks.Ended.RUNNING,
        BatchChecks.ended(
            List.of(
                check("ci", CheckStatus.SUCCESS, null),
                check("lint", CheckStatus.CANCELLED, null))));
    assertEquals(
        BatchChecks.Ended.PASSED,
        BatchChecks.ended(
            List.of(
                check("ci", CheckStatus.SUCCESS, null), check("lint", CheckStatus.SUCCESS, null))));
    assertEquals(BatchChecks.Ended.RUNNING, BatchChecks.ended(List.of()));
  }
}
