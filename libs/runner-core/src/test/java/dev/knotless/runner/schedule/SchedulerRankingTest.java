package dev.knotless.runner.schedule;

import static dev.knotless.runner.schedule.Runs.main;
import static dev.knotless.runner.schedule.Runs.pull;
import static dev.knotless.runner.schedule.Runs.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SchedulerRankingTest {

  private static final String A = "did:plc:alice";
  private static final String B = "did:plc:bob";
  private static final String C = "did:plc:carol";

  @Test
  void mainRunTakesTheNextFreeJobAheadOfOlderWaitingPulls() {
    Harness h = new Harness(SchedulerConfig.defaults(2, Harness.RUNNER).withCaps(2, 2));
    h.submitAll(pull("p1", A), pull("p2", B), pull("p3", C));
    assertEquals(List.of("p1", "p2"), h.admit());
    h.submitAll(main("m1", C));
    h.end("p1");
    assertEquals(List.of("m1"), h.admit(), "the free job goes to main, not to the older p3");
  }

  @Test
  void pullsHoldAtMostPullJobsSoMainsNextRunAlwaysHasAJob() {
    Harness h = Harness.jobs(4);
    for (int i = 0; i < 10; i++) {
      h.submitAll(pull("p" + i, "did:plc:o" + i));
    }
    assertEquals(List.of("p0", "p1"), h.admit(), "--pull-jobs defaults to half of --jobs");
    assertEquals(WaitReason.CLASS_CAP, h.reasonOf("p2"));
    h.submitAll(main("m1", A), main("m2", B));
    assertEquals(List.of("m1", "m2"), h.admit());
  }

  @Test
  void aRunningRunIsNeverStoppedForOneRankedBeforeIt() {
    Harness h = new Harness(SchedulerConfig.defaults(3, Harness.RUNNER).withCaps(2, 3));
    h.submitAll(pull("p1", A));
    h.submitAll(run("l1").owner(B).at("refs/heads/x", "x1").cls(RunClass.OTHER));
    h.scheduler.admit(h.now);
    h.submitAll(main("m1", C), main("m2", C));
    assertEquals(List.of("m1"), h.admit());
    assertEquals(WaitReason.JOB, h.reasonOf("m2"));
    assertEquals(3, h.scheduler.runningCount(), "p1 and l1 still hold their jobs, nothing cut");
  }

  @Test
  void aBurstOfOneOwnersRunsGoesOneAtATimeBetweenOtherOwnersRuns() {
    Harness h = new Harness(SchedulerConfig.defaults(1, Harness.RUNNER));
    h.submitAll(pull("a1", A), pull("a2", A), pull("a3", A), pull("a4", A));
    h.submitAll(pull("b1", B), pull("c1", C));
    assertEquals(List.of("a1", "b1", "c1", "a2", "a3", "a4"), h.drainOneAtATime());
  }

  @Test
  void eachRunComesTheTurnAfterItsOwnersLastWaitingOrAtTheTurnOfTheLastToStart() {
    Harness h = new Harness(SchedulerConfig.defaults(1, Harness.RUNNER));
    h.submitAll(pull("a1", A), pull("a2", A), pull("a3", A), pull("a4", A));
    assertEquals(List.of("a1"), h.admit()); // turn 0 started
    // None of bob's waiting: his run comes at turn 0, the last to start, before a2 at turn 1.
    h.submitAll(pull("b1", B));
    // Bob has b1 waiting at turn 0: b2 comes the turn after it, turn 1, after a2.
    h.submitAll(pull("b2", B));
    h.end("a1");
    assertEquals(List.of("b1"), h.admit());
    h.end("b1");
    assertEquals(List.of("a2"), h.admit()); // turn 1 started
    h.submitAll(pull("c1", C)); // at turn 1, after b2 which was there first
    assertEquals(List.of("a2", "b2", "c1", "a3", "a4").subList(1, 5), drainAfter(h, "a2"));
  }

  private static List<String> drainAfter(Harness h, String running) {
    h.end(running);
    return h.drainOneAtATime();
  }

  @Test
  void oneOwnersRunsKeepTheOrderTheyWereStartedIn() {
    Harness h = new Harness(SchedulerConfig.defaults(1, Harness.RUNNER));
    for (int i = 0; i < 6; i++) {
      h.submitAll(pull("a" + i, A));
      h.submitAll(pull("b" + i, B));
    }
    List<String> order = h.drainOneAtATime();
    List<String> alices = order.stream().filter(id -> id.startsWith("a")).toList();
    assertEquals(List.of("a0", "a1", "a2", "a3", "a4", "a5"), alices);
    assertEquals(List.of("a0", "b0", "a1", "b1", "a2", "b2"), order.subList(0, 6));
  }

  @Test
  void ownerJobsCapsOneOwnerWhileOtherOwnersTakeTheFreeJobs() {
    Harness h = new Harness(SchedulerConfig.defaults(4, Harness.RUNNER).withCaps(2, 2));
    h.submitAll(main("a1", A), main("a2", A), main("a3", A), main("b1", B));
    assertEquals(List.of("a1", "b1", "a2"), h.admit());
    assertEquals(WaitReason.OWNER_CAP, h.reasonOf("a3"));
    h.submitAll(main("c1", C));
    assertEquals(List.of("c1"), h.admit(), "carol takes the job alice may not");
  }

  @Test
  void runsAskedByNameGoAfterEveryOtherWaitingRunHoweverOld() {
    Harness h = new Harness(SchedulerConfig.defaults(1, Harness.RUNNER));
    h.submitAll(main("m0", A));
    h.admit();
    h.submitAll(run("asked").owner(B).at("refs/heads/main", "c0").cls(RunClass.ASKED));
    h.submitAll(run("later").owner(C).pullAt("at://pull/1", "h1").cls(RunClass.LATER));
    h.submitAll(pull("p1", C));
    h.submitAll(main("m1", B));
    h.end("m0");
    assertEquals(List.of("m1", "p1", "later", "asked"), h.drainOneAtATime());
  }

  @Test
  void aLaterRunGoesAheadWithWhatNothingBeforeItWaitsFor() {
    Harness h = Harness.jobs(4);
    h.submitAll(main("deploy1", A).repo("site").workflow("deploy").finish());
    assertEquals(List.of("deploy1"), h.admit());
    h.submitAll(
        main("deploy2", A).repo("site").workflow("deploy").finish().at("refs/heads/main", "c2"));
    h.submitAll(main("ci2", A).repo("site").at("refs/heads/main", "c2"));
    assertEquals(List.of("ci2"), h.admit(), "deploy2 waits for the turn; ci2 needs none");
    assertEquals(WaitReason.TURN, h.reasonOf("deploy2"));
  }

  @Test
  void everyWaitingRunHasAReasonCountedByClass() {
    Harness h = new Harness(SchedulerConfig.defaults(3, Harness.RUNNER).withCaps(1, 2));
    h.submitAll(main("m1", A), main("m2", A), main("m3", A), pull("p1", B), pull("p2", C));
    assertEquals(List.of("m1", "m2", "p1"), h.admit());
    var counts = h.scheduler.waitingCounts(h.now);
    assertEquals(1, counts.get(RunClass.MAIN).get(WaitReason.OWNER_CAP));
    assertEquals(1, counts.get(RunClass.OTHER).get(WaitReason.CLASS_CAP));
    assertEquals(0, counts.get(RunClass.ASKED).get(WaitReason.JOB), "every pair is present");
    assertTrue(h.scheduler.waiting(h.now).stream().allMatch(w -> w.reason() != null));
  }
}
