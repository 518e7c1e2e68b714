package dev.knotless.runner.schedule;

import static dev.knotless.runner.schedule.Runs.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;
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

    List<Admission> first = h.scheduler.admit(h.now, HeldElsewhere.jobs(Map.of(A, 1)));
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
        h.scheduler.admit(h.now, HeldElsewhere.NONE).stream().map(Admission::runId).toList(),
        "once her run elsewhere ended, the next goes");
  }

  @Test
  void aDeployWaitsWhileADeployFiledOnAnotherReplicaBeforeItHoldsTheTurn() {
    Harness h = Harness.jobs(4);
    Runs deploy =
        run("d2").owner(A).repo(A + "/site").at("refs/heads/main", "c2").workflow("deploy");
    h.submitAll(deploy.finish());
    h.submitAll(run("ci2").owner(A).repo(A + "/site").at("refs/heads/main", "c2"));
    RunRequest.WorkKey turn = new RunRequest.WorkKey(A + "/site", "refs/heads/main", "deploy");
    HeldElsewhere older = new HeldElsewhere(Map.of(), Set.of(turn));

    assertEquals(
        List.of("ci2"),
        h.scheduler.admit(h.now, older).stream().map(Admission::runId).toList(),
        "the deploy filed on the other replica first goes first; this commit's ci does not wait");
    assertEquals(
        WaitReason.TURN,
        h.scheduler.waiting(h.now).get(0).reason(),
        "the deploy here waits for the turn, held elsewhere");
    HeldElsewhere otherRef =
        new HeldElsewhere(
            Map.of(), Set.of(new RunRequest.WorkKey(A + "/site", "refs/heads/next", "deploy")));
    assertEquals(
        List.of("d2"),
        h.scheduler.admit(h.now, otherRef).stream().map(Admission::runId).toList(),
        "once the older deploy ended, this one goes; a deploy of another ref does not hold it");
  }

  @Test
  void aNewerCommitsRunSupersedesRunsElsewhereUnlessItIsADeployAskedForByNameOrABatch() {
    Runs ci = run("c").owner(A).repo(A + "/site").at("refs/heads/main", "c3");
    assertEquals(true, Scheduler.supersedesElsewhere(ci.build()), "a push's ci");
    assertEquals(
        false,
        Scheduler.supersedesElsewhere(
            run("d").owner(A).repo(A + "/site").at("refs/heads/main", "c3").finish().build()),
        "a deploy waits its turn instead");
    assertEquals(
        false,
        Scheduler.supersedesElsewhere(
            run("a")
                .owner(A)
                .repo(A + "/site")
                .at("refs/heads/main", "c3")
                .cls(RunClass.ASKED)
                .build()),
        "a run asked for by name replaces its own commit's only");
  }
}
