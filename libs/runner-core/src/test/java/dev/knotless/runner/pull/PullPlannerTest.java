package dev.knotless.runner.pull;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.pull.PullPlanner.Plan;
import dev.knotless.runner.pull.PullPlanner.PullAt;
import dev.knotless.runner.pull.PullPlanner.Why;
import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.PullMark;
import dev.knotless.runner.state.RepoState;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PullPlannerTest {

  static final String P = "at://did:plc:a/dev.knotless.pull/3kaaaaaaaaaaa.3kbbbbbbbbbbb";
  static final String Q = "at://did:plc:b/dev.knotless.pull/3kaaaaaaaaaaa.3kccccccccccc";

  static PullAt at(String uri, PullTrust trust, String head, String base) {
    return new PullAt(uri, trust, head, base);
  }

  static List<Why> whys(Plan plan) {
    return plan.due().stream().map(PullPlanner.Due::why).toList();
  }

  @Test
  void aFirstWatchTakesEveryOpenPullAsItIsAndRunsNone() {
    Plan plan =
        PullPlanner.plan(
            List.of(at(P, PullTrust.TRUSTED, "h1", "b1")), RepoState.empty(), true, true);
    assertTrue(plan.due().isEmpty());
    RepoState s = PullPlanner.settle(RepoState.empty(), plan);
    assertEquals(new PullMark("h1", "b1"), s.pulls().get(P));
  }

  @Test
  void aTrustedPullRunsWhenNewWhenItsHeadMovesAndWhenItsBaseMoves() {
    RepoState none = RepoState.empty();
    assertEquals(
        List.of(Why.NEW),
        whys(PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b1")), none, false, true)));
    RepoState ran = none.withPull(P, new PullMark("h1", "b1"));
    assertEquals(
        List.of(Why.MOVED),
        whys(PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h2", "b1")), ran, false, true)));
    assertEquals(
        List.of(Why.BASE_MOVED),
        whys(PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b2")), ran, false, true)));
  }

  @Test
  void aPullAtTheHeadAndBaseItLastRanAtDoesNotRunAgain() {
    RepoState ran = RepoState.empty().withPull(P, new PullMark("h1", "b1"));
    assertTrue(
        PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b1")), ran, false, true)
            .due()
            .isEmpty());
  }

  @Test
  void underPullsOnlyABaseThatMovedAloneRunsNothing() {
    RepoState ran = RepoState.empty().withPull(P, new PullMark("h1", "b1"));
    assertTrue(
        PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b2")), ran, false, false)
            .due()
            .isEmpty());
  }

  @Test
  void anAgentsPullRunsAsItMoves() {
    assertEquals(
        List.of(Why.NEW),
        whys(
            PullPlanner.plan(
                List.of(at(P, PullTrust.AGENT, "h1", "b1")), RepoState.empty(), false, true)));
  }

  @Test
  void anUntrustedPullIsPassedOverUntilAskedForThenRunsOnce() {
    Plan over =
        PullPlanner.plan(
            List.of(at(Q, PullTrust.UNTRUSTED, "h1", "b1")), RepoState.empty(), false, true);
    assertTrue(over.due().isEmpty());
    RepoState s = PullPlanner.settle(RepoState.empty(), over);
    assertEquals(new PullMark("h1", "b1"), s.pulls().get(Q));

    RepoState asked = s.withAsked(Q, Set.of());
    Plan plan =
        PullPlanner.plan(List.of(at(Q, PullTrust.UNTRUSTED, "h2", "b1")), asked, false, true);
    assertEquals(List.of(Why.ASKED), whys(plan));
    RepoState after = PullPlanner.filed(PullPlanner.settle(asked, plan), plan.due().get(0));
    assertTrue(after.asked().isEmpty(), "the ask is met");
    assertEquals(new PullMark("h2", "b1"), after.pulls().get(Q));

    // It moves again: passed over, not run.
    Plan next =
        PullPlanner.plan(List.of(at(Q, PullTrust.UNTRUSTED, "h3", "b1")), after, false, true);
    assertTrue(next.due().isEmpty());
    assertEquals(1, next.passedOver().size());
  }

  @Test
  void aPullAskedForSomeWorkflowsRunsOnlyThose() {
    RepoState asked = RepoState.empty().withAsked(P, Set.of("lint"));
    Plan plan = PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b1")), asked, false, true);
    assertEquals(Set.of("lint"), plan.due().get(0).only());
  }

  @Test
  void aPullNoLongerOpenIsForgottenWithItsAsk() {
    RepoState s = RepoState.empty().withPull(P, new PullMark("h1", "b1")).withAsked(P, Set.of());
    Plan plan = PullPlanner.plan(List.of(), s, false, true);
    assertEquals(Set.of(P), plan.closed());
    RepoState after = PullPlanner.settle(s, plan);
    assertTrue(after.pulls().isEmpty());
    assertTrue(after.asked().isEmpty());
  }

  @Test
  void aPullsRunsAStopDroppedRunAgainWhereItIsOnlyThoseWorkflowsAndOnce() {
    RepoState s =
        RepoState.empty()
            .withPull(P, new PullMark("h1", "b1"))
            .withDropped(new DroppedRun(P, "h1", "b1", List.of("ci", "lint")));
    Plan plan = PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b1")), s, false, true);
    assertEquals(List.of(Why.DROPPED), whys(plan));
    assertEquals(Set.of("ci", "lint"), plan.due().get(0).only());
    RepoState after = PullPlanner.filed(s, plan.due().get(0));
    assertTrue(after.dropped().isEmpty(), "once filed it is not dropped any more");
    assertTrue(
        PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b1")), after, false, true)
            .due()
            .isEmpty());
    // An untrusted pull the owner asked for, dropped before it ran, runs where it was asked.
    assertEquals(
        List.of(Why.DROPPED),
        whys(PullPlanner.plan(List.of(at(P, PullTrust.UNTRUSTED, "h1", "b1")), s, false, true)));
    // Moved since: it runs as a move says, all its workflows; closed: the drop is forgotten.
    assertEquals(
        List.of(Why.MOVED),
        whys(PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h2", "b1")), s, false, true)));
    Plan closed = PullPlanner.plan(List.of(), s, false, true);
    assertTrue(PullPlanner.settle(s, closed).dropped().isEmpty());
  }

  @Test
  void aRunDroppedOfAPullClosedSinceIsNamedToBeEndedAndOneOfAPullTheQueueHoldsIsKept() {
    DroppedRun cut = new DroppedRun(P, "h1", "b1", List.of("ci"));
    DroppedRun ref = new DroppedRun("refs/heads/main", "c1", "", List.of("ci"));
    RepoState s =
        RepoState.empty().withPull(P, new PullMark("h1", "b1")).withDropped(cut).withDropped(ref);

    Plan closed = PullPlanner.plan(List.of(), s, false, true);
    assertEquals(List.of(cut), closed.closedOn(), "its check is ended: the pull will not run");
    RepoState after =
        PullPlanner.settle(s.withDropped(new DroppedRun(P, "h1", "b1", List.of("x"))), closed);
    assertEquals(
        List.of(ref, new DroppedRun(P, "h1", "b1", List.of("x"))),
        after.dropped(),
        "a ref's drop is not the pulls step's, and one dropped after the read waits for the next pass");

    Plan held = PullPlanner.plan(List.of(), Set.of(P), s, false, true);
    assertEquals(List.of(), held.closedOn(), "queued: its batch is its run for now");
    RepoState kept = PullPlanner.settle(s, held);
    assertEquals(List.of(cut, ref), kept.dropped());
    // Ejected from the queue, open again at the same place: it runs, all of it, and once filed
    // the dropped run is spent.
    Plan back = PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b1")), kept, false, true);
    assertEquals(List.of(Why.NEW), whys(back));
    assertEquals(List.of(ref), PullPlanner.filed(kept, back.due().get(0)).dropped());
  }

  @Test
  void aRunDroppedOnABaseThatMovedAloneRunsInFullOnTheNewBaseEvenWhereBaseMovesRunNothing() {
    RepoState s =
        RepoState.empty()
            .withPull(P, new PullMark("h1", "b1"))
            .withDropped(new DroppedRun(P, "h1", "b1", List.of("ci")));
    // A runner landing the queue: a base that moved alone does not run a pull again.
    Plan landing = PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b2")), s, false, false);
    assertEquals(List.of(Why.DROPPED), whys(landing));
    assertEquals(Set.of(), landing.due().get(0).only(), "all its workflows");
    RepoState after = PullPlanner.filed(PullPlanner.settle(s, landing), landing.due().get(0));
    assertTrue(after.dropped().isEmpty());
    assertTrue(
        PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b2")), after, false, false)
            .due()
            .isEmpty(),
        "once");
    // An untrusted pull the owner asked for runs again on the same terms.
    assertEquals(
        List.of(Why.DROPPED),
        whys(PullPlanner.plan(List.of(at(P, PullTrust.UNTRUSTED, "h1", "b2")), s, false, true)));
    // Its head moved too: a trusted pull runs as a move says, an untrusted one waits for an ask.
    assertEquals(
        List.of(Why.MOVED),
        whys(PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h2", "b2")), s, false, false)));
    assertTrue(
        PullPlanner.plan(List.of(at(P, PullTrust.UNTRUSTED, "h2", "b2")), s, false, true)
            .due()
            .isEmpty());
  }

  @Test
  void aRunDroppedWhereThePullNoLongerIsIsNamedToBeEndedAndOnlyWhatThePassReadIsForgotten() {
    DroppedRun old = new DroppedRun(P, "h1", "b1", List.of("ci"));
    RepoState read = RepoState.empty().withPull(P, new PullMark("h1", "b1")).withDropped(old);
    Plan plan = PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h2", "b1")), read, false, true);
    assertEquals(List.of(Why.MOVED), whys(plan));
    assertEquals(List.of(old), plan.movedOn(), "its check is ended, as the pull moved");

    // A stopping worker's run at the old head, recovered after the pass read the state.
    DroppedRun late = new DroppedRun(P, "h1", "b1", List.of("lint"));
    RepoState settled = PullPlanner.settle(read.withDropped(late), plan);
    assertEquals(List.of(late), settled.dropped(), "kept: no one has ended its check");
    RepoState after = PullPlanner.filed(settled, plan.due().get(0));
    assertEquals(List.of(late), after.dropped(), "filing at h2 does not forget what h1 left");
    Plan next = PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h2", "b1")), after, false, true);
    assertEquals(List.of(), next.due());
    assertEquals(List.of(late), next.movedOn());
    assertEquals(List.of(), PullPlanner.settle(after, next).dropped());
  }

  @Test
  void aRunDroppedWhereThePullStillIsIsNotMovedOnAndARunDroppedOnAnOldBaseIs() {
    DroppedRun here = new DroppedRun(P, "h1", "b1", List.of("ci"));
    RepoState s = RepoState.empty().withPull(P, new PullMark("h1", "b1")).withDropped(here);
    assertEquals(
        List.of(),
        PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b1")), s, false, true).movedOn());
    assertEquals(
        List.of(here),
        PullPlanner.plan(List.of(at(P, PullTrust.TRUSTED, "h1", "b2")), s, false, false).movedOn(),
        "the run on the new base files checks of its own");
  }
}
