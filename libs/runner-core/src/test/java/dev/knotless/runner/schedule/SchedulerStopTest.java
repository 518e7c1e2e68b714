package dev.knotless.runner.schedule;

import static dev.knotless.runner.schedule.Runs.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class SchedulerStopTest {

  private static final String A = "did:plc:alice";

  private static Runs at(String id, String commit) {
    return run(id).owner(A).repo("site").at("refs/heads/main", commit).cls(RunClass.MAIN);
  }

  @Test
  void aStopCancelsRunsByNameAndDropsWaitingRunsButKeepsThoseAtARunningDeploysCommit() {
    Harness h = Harness.jobs(2);
    h.submitAll(at("deploy", "c1").workflow("deploy").finish());
    h.submitAll(run("suite").owner(A).repo("site").at("refs/heads/x", "x1").cls(RunClass.ASKED));
    h.admit();
    h.submitAll(at("e2e", "c1").workflow("e2e"), at("lint", "c1").workflow("lint"));
    h.submitAll(run("other").owner(A).repo("site").at("refs/heads/y", "y1").cls(RunClass.OTHER));
    List<Decision.Cancel> stop = h.scheduler.stop();
    assertEquals(
        List.of(
            new Decision.Cancel("suite", true, CancelReason.STOP),
            new Decision.Cancel("other", false, CancelReason.STOP)),
        stop);
    h.scheduler.finished("suite", 0, h.now);
    assertEquals(List.of("e2e"), h.admit(), "the deploy may wait for its commit's other checks");
    h.scheduler.finished("deploy", 0, h.now);
    h.scheduler.fileEnded("deploy");
    assertEquals(
        List.of(new Decision.Cancel("lint", false, CancelReason.STOP)),
        h.scheduler.stopDrops(),
        "once the deploy ended, what it kept and did not start is dropped");
    assertThrows(IllegalStateException.class, () -> h.submit(at("late", "c2")));
  }
}
