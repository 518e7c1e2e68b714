package dev.knotless.runner.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.WantedRun;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DuePlannerTest {

  private static final String OWNER = "did:plc:alice";
  private static final RefState MAIN = new RefState("refs/heads/main", "c5", 5);
  private static final RefState FEATURE = new RefState("refs/heads/feature", "f2", 2);

  private static RepoView view(RefState... refs) {
    return new RepoView(OWNER, "3kabc", null, List.of(refs));
  }

  private static RepoState ran(long main, long feature) {
    return RepoState.empty()
        .withRef("refs/heads/main", main)
        .withRef("refs/heads/feature", feature);
  }

  private static List<String> dueNames(PassPlan plan) {
    return plan.due().stream().map(d -> d.ref().name() + ":" + d.why()).toList();
  }

  @Test
  void aRefWhoseGenerationIsPastTheOneLastRunIsDueInItsClass() {
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), ran(4, 1), Watch.KNOWN);
    assertEquals(List.of("refs/heads/main:MOVED", "refs/heads/feature:MOVED"), dueNames(plan));
    assertEquals(RunClass.MAIN, plan.due().get(0).runClass());
    assertEquals(RunClass.OTHER, plan.due().get(1).runClass());
  }

  @Test
  void aRefThatDidNotMoveIsNotRunAgain() {
    assertEquals(List.of(), DuePlanner.plan(view(MAIN, FEATURE), ran(5, 2), Watch.KNOWN).due());
  }

  @Test
  void anIdlePassSettlesNothingSoItsStateIsNeitherReadAgainNorWritten() {
    PassPlan idle = DuePlanner.plan(view(MAIN, FEATURE), ran(5, 2), Watch.KNOWN);
    assertFalse(idle.settles(), "nothing moved, was deleted or was dropped");
    // Whatever the state holds by the time it would be written, settling leaves it as it is.
    RepoState meanwhile =
        ran(5, 2).withDropped(new DroppedRun("refs/heads/main", "c4", "", List.of("ci")));
    assertEquals(meanwhile, idle.settle(meanwhile));
    assertTrue(DuePlanner.plan(view(MAIN), ran(5, 2), Watch.KNOWN).settles(), "a ref was deleted");
    assertTrue(DuePlanner.plan(view(MAIN, FEATURE), ran(5, 2), Watch.FIRST).settles(), "first");
    assertTrue(
        DuePlanner.plan(view(MAIN, FEATURE), meanwhile, Watch.KNOWN).settles(),
        "a run dropped where main has moved on is forgotten");
  }

  @Test
  void aRefNewToTheRunnerIsDue() {
    RepoState state = RepoState.empty().withRef("refs/heads/main", 5);
    assertEquals(
        List.of("refs/heads/feature:NEW"),
        dueNames(DuePlanner.plan(view(MAIN, FEATURE), state, Watch.KNOWN)));
  }

  @Test
  void aRefAtARunDroppedAtAStopRunsOnlyTheDroppedWorkflowsOnce() {
    RepoState state =
        ran(5, 2).withDropped(new DroppedRun("refs/heads/main", "c5", "", List.of("deploy")));
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), state, Watch.KNOWN);
    assertEquals(List.of("refs/heads/main:DROPPED"), dueNames(plan));
    assertEquals(List.of("deploy"), plan.due().get(0).onlyWorkflows());
    RepoState after = PassPlan.filed(plan.settle(state), plan.due().get(0));
    assertEquals(List.of(), DuePlanner.plan(view(MAIN, FEATURE), after, Watch.KNOWN).due());
  }

  @Test
  void aWorkflowDroppedWhileAPassRanTheOthersDroppedThereRunsInTheNextPass() {
    // A stopping worker handed back two runs of c5; the recovery puts them back one at a time, and
    // the pass its first ring started planned only the first.
    RepoState state =
        ran(5, 2).withDropped(new DroppedRun("refs/heads/main", "c5", "", List.of("ci")));
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), state, Watch.KNOWN);
    assertEquals(List.of("ci"), plan.due().get(0).onlyWorkflows());
    RepoState meanwhile =
        state.withDropped(new DroppedRun("refs/heads/main", "c5", "", List.of("deploy")));

    RepoState after = PassPlan.filed(plan.settle(meanwhile), plan.due().get(0));
    PassPlan next = DuePlanner.plan(view(MAIN, FEATURE), after, Watch.KNOWN);
    assertEquals(List.of("refs/heads/main:DROPPED"), dueNames(next), "the deploy is not lost");
    assertEquals(List.of("deploy"), next.due().get(0).onlyWorkflows());
  }

  @Test
  void aRefThatMovedOnFromADroppedRunRunsAllItsWorkflows() {
    RepoState state =
        ran(4, 2).withDropped(new DroppedRun("refs/heads/main", "c4", "", List.of("deploy")));
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), state, Watch.KNOWN);
    assertEquals(List.of("refs/heads/main:MOVED"), dueNames(plan));
    assertEquals(List.of(), plan.due().get(0).onlyWorkflows());
    assertEquals(List.of(), PassPlan.filed(plan.settle(state), plan.due().get(0)).dropped());
  }

  @Test
  void aRunDroppedAtAnOlderCommitWhileAPassRanIsEndedByTheNextPass() {
    // The ref is at c5; a stopping worker hands back a deploy of c4 while a pass at c5 runs.
    RepoState state = ran(4, 2);
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), state, Watch.KNOWN);
    DroppedRun old = new DroppedRun("refs/heads/main", "c4", "", List.of("deploy"));
    RepoState meanwhile = plan.settle(state).withDropped(old);

    RepoState after = PassPlan.filed(meanwhile, plan.due().get(0));
    assertEquals(List.of(old), after.dropped(), "kept, so that its check is ended, not forgotten");
    PassPlan next = DuePlanner.plan(view(MAIN, FEATURE), after, Watch.KNOWN);
    assertEquals(List.of(old), next.movedOn(), "the next pass ends it as moved on");
    assertEquals(List.of(), next.settle(after).dropped());
  }

  @Test
  void aRunDroppedAfterItsRefMovedOnIsNamedToBeEndedAndForgotten() {
    // Handed back by a stopping worker after the newer commit was already filed here.
    DroppedRun old = new DroppedRun("refs/heads/main", "c4", "", List.of("ci", "deploy"));
    DroppedRun current = new DroppedRun("refs/heads/feature", "f2", "", List.of("ci"));
    RepoState state = ran(5, 2).withDropped(old).withDropped(current);
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), state, Watch.KNOWN);
    assertEquals(List.of(old), plan.movedOn());
    assertEquals(List.of("refs/heads/feature:DROPPED"), dueNames(plan));
    assertEquals(List.of(current), plan.settle(state).dropped());
  }

  @Test
  void aRunDroppedAfterThePassReadTheStateOutlivesItsSettleAndTheNextPassEndsIt() {
    // The pass read the state at c5 with nothing dropped; before it settled, a stopping worker's
    // deploy of c4 was recovered into the state. No one has ended that check yet.
    RepoState read = ran(4, 2);
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), read, Watch.KNOWN);
    DroppedRun late = new DroppedRun("refs/heads/main", "c4", "", List.of("deploy"));
    RepoState settled = plan.settle(read.withDropped(late));
    assertEquals(List.of(late), settled.dropped(), "kept: its check is still queued");

    RepoState after = PassPlan.filed(settled, plan.due().get(0));
    PassPlan next = DuePlanner.plan(view(MAIN, FEATURE), after, Watch.KNOWN);
    assertEquals(List.of(late), next.movedOn());
    assertEquals(List.of(), next.settle(after).dropped());
  }

  @Test
  void aWorkflowDroppedLateBesideOnesThePassSawIsKept() {
    DroppedRun seen = new DroppedRun("refs/heads/main", "c4", "", List.of("ci"));
    RepoState read = ran(5, 2).withDropped(seen);
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), read, Watch.KNOWN);
    assertEquals(List.of(seen), plan.movedOn());
    RepoState meanwhile =
        read.withDropped(new DroppedRun("refs/heads/main", "c4", "", List.of("deploy")));
    assertEquals(
        List.of(new DroppedRun("refs/heads/main", "c4", "", List.of("deploy"))),
        plan.settle(meanwhile).dropped(),
        "only the workflows the pass ended are forgotten");
  }

  @Test
  void aRunDroppedAtARefSinceDeletedIsNamedToBeEnded() {
    DroppedRun gone = new DroppedRun("refs/heads/feature", "f1", "", List.of("ci"));
    RepoState read = ran(5, 1).withDropped(gone);
    PassPlan plan = DuePlanner.plan(view(MAIN), read, Watch.KNOWN);
    assertEquals(List.of("refs/heads/feature"), plan.deleted());
    assertEquals(List.of(gone), plan.movedOn());
    DroppedRun late = new DroppedRun("refs/heads/feature", "f2", "", List.of("ci"));
    RepoState settled = plan.settle(read.withDropped(late));
    assertEquals(List.of(late), settled.dropped(), "dropped after the read: the next pass ends it");
    assertEquals(Map.of("refs/heads/main", 5L), settled.refs());
    assertEquals(List.of(late), DuePlanner.plan(view(MAIN), settled, Watch.KNOWN).movedOn());
  }

  @Test
  void aDeletedRefNeverRunsAndIsForgottenWithWhatWasDroppedOrWantedThere() {
    RepoState state =
        ran(5, 1)
            .withDropped(new DroppedRun("refs/heads/feature", "f1", "", List.of("ci")))
            .withWanted("refs/heads/feature", new WantedRun("suite", Map.of()));
    PassPlan plan = DuePlanner.plan(view(MAIN), state, Watch.KNOWN);
    assertEquals(List.of(), plan.due());
    assertEquals(List.of(), plan.asked());
    assertEquals(List.of("refs/heads/feature"), plan.deleted());
    RepoState settled = plan.settle(state);
    assertEquals(Map.of("refs/heads/main", 5L), settled.refs());
    assertEquals(List.of(), settled.dropped());
    assertEquals(Map.of(), settled.wanted());
    RefState recreated = new RefState("refs/heads/feature", "f9", 1);
    assertEquals(
        List.of("refs/heads/feature:NEW"),
        dueNames(DuePlanner.plan(view(MAIN, recreated), settled, Watch.KNOWN)),
        "a ref made again later is new to the runner");
  }

  @Test
  void theFirstWatchIsABaselineThatRunsNothingAndRecordsEveryGeneration() {
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), RepoState.empty(), Watch.FIRST);
    assertTrue(plan.baseline());
    assertEquals(List.of(), plan.due());
    RepoState after = plan.settle(RepoState.empty());
    assertEquals(Map.of("refs/heads/main", 5L, "refs/heads/feature", 2L), after.refs());
    assertEquals(List.of(), DuePlanner.plan(view(MAIN, FEATURE), after, Watch.KNOWN).due());
  }

  @Test
  void aRepositoryFoundNamingTheRunnerRunsItsDefaultBranchTipOnceAndNothingElse() {
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), RepoState.empty(), Watch.FIRST_DISCOVERED);
    assertEquals(List.of("refs/heads/main:DISCOVERED"), dueNames(plan));
    RepoState after = PassPlan.filed(plan.settle(RepoState.empty()), plan.due().get(0));
    assertEquals(List.of(), DuePlanner.plan(view(MAIN, FEATURE), after, Watch.KNOWN).due());
  }

  @Test
  void workflowsWantedByNameRunAtTheRefsCurrentTargetEvenIfItDidNotMove() {
    RepoState state =
        ran(5, 2).withWanted("refs/heads/main", new WantedRun("suite", Map.of("N", "1")));
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), state, Watch.KNOWN);
    assertEquals(List.of(), plan.due());
    assertEquals(1, plan.asked().size());
    assertEquals("c5", plan.asked().get(0).ref().target());
    assertEquals(Map.of(), PassPlan.askedFiled(state, plan.asked().get(0)).wanted());
  }

  @Test
  void aWishMadeAfterThePassReadTheStateOutlivesTheFilingOfTheOnesItRead() {
    WantedRun suite = new WantedRun("suite", Map.of("N", "1"));
    RepoState read = ran(5, 2).withWanted("refs/heads/main", suite);
    PassPlan plan = DuePlanner.plan(view(MAIN, FEATURE), read, Watch.KNOWN);
    WantedRun deploy = new WantedRun("deploy", Map.of());
    WantedRun suiteAgain = new WantedRun("suite", Map.of("N", "2"));
    RepoState meanwhile = read.withWanted("refs/heads/main", deploy);
    assertEquals(
        Map.of("refs/heads/main", List.of(deploy)),
        PassPlan.askedFiled(meanwhile, plan.asked().get(0)).wanted(),
        "another workflow handed back meanwhile");
    assertEquals(
        Map.of("refs/heads/main", List.of(suiteAgain)),
        PassPlan.askedFiled(read.withWanted("refs/heads/main", suiteAgain), plan.asked().get(0))
            .wanted(),
        "the same workflow asked for again with other variables");
  }

  @Test
  void theDefaultBranchIsMainUnlessTheRecordNamesAnother() {
    RepoView trunk =
        new RepoView(OWNER, "k", "trunk", List.of(new RefState("refs/heads/trunk", "t", 1), MAIN));
    PassPlan plan = DuePlanner.plan(trunk, RepoState.empty().withRef("x", 0), Watch.KNOWN);
    assertEquals(RunClass.MAIN, plan.due().get(0).runClass());
    assertEquals(RunClass.OTHER, plan.due().get(1).runClass());
    assertEquals("refs/heads/main", view().defaultRef());
  }
}
