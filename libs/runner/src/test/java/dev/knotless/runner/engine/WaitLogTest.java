package dev.knotless.runner.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.schedule.WaitReason;
import dev.knotless.runner.schedule.WaitingRun;
import dev.knotless.runner.workflow.Superseded;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WaitLogTest {

  private static WaitingRun waiting(String id, WaitReason reason) {
    RunRequest r =
        new RunRequest(
            id,
            "did:plc:alice",
            "did:plc:alice/3kapp",
            "refs/heads/main",
            SubjectKind.REF,
            "ci-" + id,
            "a".repeat(40),
            RunClass.OTHER,
            Superseded.CANCEL,
            false);
    return new WaitingRun(r, reason, Instant.EPOCH);
  }

  private static List<String> logged(List<WaitLog.Change> changes) {
    return changes.stream().map(c -> c.run().request().runId() + " " + c.reason().tag()).toList();
  }

  @Test
  void aRunIsLoggedAsItStartsToWaitAndAgainOnlyWhenItsReasonChanges() {
    WaitLog log = new WaitLog();
    assertEquals(
        List.of("a job", "b allowance"),
        logged(
            log.update(List.of(waiting("a", WaitReason.JOB), waiting("b", WaitReason.ALLOWANCE)))));
    assertEquals(
        List.of(),
        logged(
            log.update(List.of(waiting("a", WaitReason.JOB), waiting("b", WaitReason.ALLOWANCE)))));
    assertEquals(
        List.of("a owner_cap"),
        logged(
            log.update(
                List.of(waiting("a", WaitReason.OWNER_CAP), waiting("b", WaitReason.ALLOWANCE)))));
  }

  @Test
  void aRunThatStartedAndWaitsAgainUnderTheSameIdIsLoggedAgain() {
    WaitLog log = new WaitLog();
    log.update(List.of(waiting("a", WaitReason.JOB)));
    log.update(List.of());
    assertEquals(List.of("a job"), logged(log.update(List.of(waiting("a", WaitReason.JOB)))));
  }

  @Test
  void everyReasonHasWordsThatNameNoRunOrSecret() {
    for (WaitReason r : WaitReason.values()) {
      String why = WaitLog.why(r);
      assertFalse(why.isBlank(), r.tag());
      assertFalse(why.contains("did:"), why);
    }
  }
}
