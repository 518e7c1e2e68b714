package dev.knotless.runner.schedule;

import static dev.knotless.runner.schedule.Runs.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerElsewhereTest {

  private static final String A = "did:plc:alice";
  private static final String B = "did:plc:bob";

  @Test
  void jobsAnOwnersRunsHoldInOtherReplicasCountAgainstTheirOwnerCap() {
    Harness h = new Harness(SchedulerConfig.defaults(4, Harness.RUNNER).withCaps(2, 2));
    h.submitAll(
        run("a1").owner(A).repo("a-app").at("refs/heads/main", "c1").cls(RunClass.MAIN),
        run("a2").owner(A).repo("a-lib").at("refs/heads/main", "c2").cls(RunClass.MAIN),
        run("b1").owner(B).repo("b-app").at("refs/heads/main", "c3").cls(RunClass.MAIN));

    List<Admission> first = h.scheduler.admit(h.now, Map.of(A, 1));
    assertEquals(
        List.of("a1", "b1"),
        first.stream().map(Admission::runId).toList(),
        "alice holds one job elsewhere, so one more here reaches her cap of two");
    assertEquals(
        WaitReason.OWNER_CAP,
        h.scheduler.waiting(h.now).get(0).reason(),
        "her second run waits for her cap");

    assertEquals(
        List.of("a2"),
        h.scheduler.admit(h.now, Map.of()).stream().map(Admission::runId).toList(),
        "once her run elsewhere ended, the next goes");
  }
}
