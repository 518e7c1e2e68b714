package dev.knotless.runner.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.queue.QueuePlan.Build;
import dev.knotless.runner.queue.QueuePlan.Cancel;
import dev.knotless.runner.queue.QueuePlan.Check;
import dev.knotless.runner.queue.QueuePlan.Eject;
import dev.knotless.runner.queue.QueuePlan.Land;
import dev.knotless.runner.queue.QueuePlan.Outcome;
import dev.knotless.runner.queue.QueuePlan.Step;
import dev.knotless.runner.queue.QueueState.Batch;
import dev.knotless.runner.queue.QueueState.Pull;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class QueuePlanTest {

  private static final String MAIN = "refs/heads/main";

  private static List<Pull> pulls(int n) {
    return IntStream.rangeClosed(1, n).mapToObj(i -> new Pull("at://p/" + i, "h" + i)).toList();
  }

  /**
   * Drives a queue to empty: a batch passes unless it holds a broken pull. Records what landed (in
   * pushes), what was ejected and how many batch runs it took.
   */
  static final class Sim {
    QueueState state = QueueState.empty(MAIN);
    final List<Pull> queued;
    final Set<Pull> broken;
    String tip = "base";
    int runs;
    final List<List<Pull>> pushes = new ArrayList<>();
    final List<Eject> ejected = new ArrayList<>();

    Sim(List<Pull> queued, Set<Pull> broken) {
      this.queued = new ArrayList<>(queued);
      this.broken = broken;
    }

    void run(int batch, int depth) {
      for (int guard = 0; guard < 1000; guard++) {
        Outcome o = QueuePlan.fill(state, queued, tip, batch, depth);
        state = o.state();
        do_(o.steps());
        if (state.running().isEmpty()) {
          if (queued.stream().noneMatch(p -> !state.holds(p.uri()))) {
            return;
          }
          continue;
        }
        // The first batch's runs end; the ones built ahead wait for it.
        Batch first = state.running().get(0);
        runs++;
        boolean fails = first.pulls().stream().anyMatch(broken::contains);
        do_((fails ? QueuePlan.failed(state, first.id()) : QueuePlan.passed(state, first.id())));
      }
      throw new AssertionError("the queue never emptied: " + state);
    }

    private void do_(Outcome o) {
      state = o.state();
      do_(o.steps());
    }

    private void do_(List<Step> steps) {
      for (Step s : steps) {
        if (s instanceof Build b) {
          state = QueuePlan.built(state, b.batch().id(), b.batch().base() + "+" + b.batch().id());
        } else if (s instanceof Land l) {
          Batch b = state.running().get(0);
          assertEquals(tip, b.base(), "a batch lands only where it was built");
          tip = b.tip();
          pushes.add(b.pulls());
          queued.removeAll(b.pulls());
          do_(QueuePlan.landed(state, l.batch().id()));
        } else if (s instanceof Eject e) {
          ejected.add(e);
          queued.remove(e.pull());
        }
      }
    }

    int landed() {
      return pushes.stream().mapToInt(List::size).sum();
    }
  }

  @Test
  void aQueueOfEightWithOneBrokenPullLandsTheOtherSevenAndEjectsItInFiveBatchRuns() {
    List<Pull> eight = pulls(8);
    Sim sim = new Sim(eight, Set.of(eight.get(4)));
    sim.run(8, 2);
    assertEquals(7, sim.landed());
    assertEquals(1, sim.ejected.size());
    Eject e = sim.ejected.get(0);
    assertEquals(eight.get(4), e.pull());
    assertEquals(1, e.foundBy(), "the eight-pull batch found it");
    assertTrue(e.why().contains("batch 1 failed"), e.why());
    // [1..8] fails, [1..4] lands, [5,6] fails, [5] fails and is ejected, [6,7,8] lands.
    assertEquals(5, sim.runs, "bisection, not one run a pull");
    assertEquals(List.of(eight.subList(0, 4), eight.subList(5, 8)), sim.pushes);
  }

  @Test
  void withNoBrokenPullEveryBatchLandsInOnePushAndTheNextIsBuiltAheadOnIt() {
    List<Pull> sixteen = pulls(16);
    Outcome first = QueuePlan.fill(QueueState.empty(MAIN), sixteen, "base", 8, 2);
    assertEquals(1, first.steps().size(), "the second batch waits for the first's tip");
    QueueState s = QueuePlan.built(first.state(), 1, "tip1");
    Outcome ahead = QueuePlan.fill(s, sixteen, "base", 8, 2);
    Build b = assertInstanceOf(Build.class, ahead.steps().get(0));
    assertEquals("tip1", b.batch().base(), "built on the batch being checked");
    assertEquals(sixteen.subList(8, 16), b.batch().pulls());

    Sim sim = new Sim(sixteen, Set.of());
    sim.run(8, 2);
    assertEquals(2, sim.runs);
    assertEquals(2, sim.pushes.size());
  }

  @Test
  void aBatchBuiltAheadThatPassesFirstLandsOnlyAfterTheOneBeforeIt() {
    List<Pull> four = pulls(4);
    QueueState s = QueuePlan.fill(QueueState.empty(MAIN), four, "base", 2, 2).state();
    s = QueuePlan.built(s, 1, "tip1");
    s = QueuePlan.fill(s, four, "base", 2, 2).state();
    s = QueuePlan.built(s, 2, "tip2");
    Outcome early = QueuePlan.passed(s, 2);
    assertEquals(List.of(), early.steps(), "batch 2 waits for batch 1");
    Outcome one = QueuePlan.passed(early.state(), 1);
    assertEquals(1L, assertInstanceOf(Land.class, one.steps().get(0)).batch().id());
    Outcome after = QueuePlan.landed(one.state(), 1);
    assertEquals(2L, assertInstanceOf(Land.class, after.steps().get(0)).batch().id());
  }

  @Test
  void aFailingBatchCancelsTheBatchBuiltAheadOnIt() {
    List<Pull> four = pulls(4);
    QueueState s = QueuePlan.fill(QueueState.empty(MAIN), four, "base", 2, 2).state();
    s = QueuePlan.built(s, 1, "tip1");
    s = QueuePlan.fill(s, four, "base", 2, 2).state();
    Outcome o = QueuePlan.failed(s, 1);
    Cancel c = assertInstanceOf(Cancel.class, o.steps().get(0));
    assertEquals(2L, c.batch().id());
    assertTrue(c.why().contains("batch 1, which failed"), c.why());
    Build half = assertInstanceOf(Build.class, o.steps().get(1));
    assertEquals(four.subList(0, 1), half.batch().pulls());
    assertEquals("base", half.batch().base());
  }

  @Test
  void aDirectPushToTheBaseCancelsTheBatchAndRebuildsItOnTheNewTip() {
    List<Pull> three = pulls(3);
    QueueState s = QueuePlan.fill(QueueState.empty(MAIN), three, "base", 8, 2).state();
    s = QueuePlan.built(s, 1, "tip1");
    Outcome o = QueuePlan.fill(s, three, "pushed", 8, 2);
    Cancel c = assertInstanceOf(Cancel.class, o.steps().get(0));
    assertTrue(c.why().contains("refs/heads/main moved to pushed"), c.why());
    Build b = assertInstanceOf(Build.class, o.steps().get(1));
    assertEquals("pushed", b.batch().base());
    assertEquals(three, b.batch().pulls());
    assertEquals(2L, b.batch().id(), "a new batch, never the stale one again");
  }

  @Test
  void aLandingPushThatLosesItsRaceLandsNothingAndRebuilds() {
    List<Pull> two = pulls(2);
    QueueState s = QueuePlan.fill(QueueState.empty(MAIN), two, "base", 8, 2).state();
    s = QueuePlan.passed(QueuePlan.built(s, 1, "tip1"), 1).state();
    Outcome refused = QueuePlan.landRefused(s, "theirs");
    assertInstanceOf(Cancel.class, refused.steps().get(0));
    assertTrue(refused.state().running().isEmpty());
    Outcome again = QueuePlan.fill(refused.state(), two, "theirs", 8, 2);
    assertEquals("theirs", assertInstanceOf(Build.class, again.steps().get(0)).batch().base());
  }

  @Test
  void aPullClosedOrQueuedAgainAtANewHeadWhileInABatchDropsTheBatchAndNotTheOthers() {
    List<Pull> three = pulls(3);
    QueueState s = QueuePlan.fill(QueueState.empty(MAIN), three, "base", 8, 1).state();
    s = QueuePlan.built(s, 1, "tip1");
    List<Pull> left = List.of(three.get(0), three.get(2));
    Outcome o = QueuePlan.fill(s, left, "base", 8, 1);
    assertInstanceOf(Cancel.class, o.steps().get(0));
    assertEquals(left, assertInstanceOf(Build.class, o.steps().get(1)).batch().pulls());
    // A pull queued twice is one pull: the same AT-URI and head are held once.
    List<Pull> twice = List.of(three.get(0), three.get(0));
    Outcome once = QueuePlan.fill(QueueState.empty(MAIN), twice, "base", 8, 1);
    assertEquals(
        List.of(three.get(0)), assertInstanceOf(Build.class, once.steps().get(0)).batch().pulls());
  }

  @Test
  void aConflictingPullIsEjectedNamingTheFilesAndTheRestGoIntoTheNextBatch() {
    List<Pull> three = pulls(3);
    QueueState s = QueuePlan.fill(QueueState.empty(MAIN), three, "base", 8, 1).state();
    Outcome o = QueuePlan.conflict(s, 1, three.get(1), List.of("README.md"));
    Eject e = assertInstanceOf(Eject.class, o.steps().get(0));
    assertTrue(
        e.why().contains("conflicts with refs/heads/main as batch 1 would leave it, in README.md"));
    List<Pull> rest = List.of(three.get(0), three.get(2));
    assertEquals(
        rest,
        assertInstanceOf(Build.class, QueuePlan.fill(o.state(), rest, "base", 8, 1).steps().get(0))
            .batch()
            .pulls());
  }

  @Test
  void afterARestartABatchTheBranchAlreadyHoldsIsAdoptedAndNeverPushedAgain() {
    List<Pull> two = pulls(2);
    QueueState s = QueuePlan.fill(QueueState.empty(MAIN), two, "base", 8, 1).state();
    s = QueuePlan.passed(QueuePlan.built(s, 1, "tip1"), 1).state();
    // Killed after the push landed, before the state said so.
    Outcome landed = QueuePlan.resume(s, "tip1");
    assertTrue(
        landed.steps().stream().noneMatch(st -> st instanceof Land), landed.steps().toString());
    assertTrue(landed.state().running().isEmpty());
    // Killed after the batch passed, before the push: it lands once.
    Outcome lands = QueuePlan.resume(s, "base");
    assertEquals(1L, assertInstanceOf(Land.class, lands.steps().get(0)).batch().id());
    // Killed while checking: its checks are adopted or run again.
    QueueState checking =
        QueuePlan.built(
            QueuePlan.fill(QueueState.empty(MAIN), two, "base", 8, 1).state(), 1, "tip1");
    assertInstanceOf(Check.class, QueuePlan.resume(checking, "base").steps().get(0));
    // The branch moved meanwhile: nothing stale lands.
    assertInstanceOf(Cancel.class, QueuePlan.resume(s, "elsewhere").steps().get(0));
  }

  @Test
  void twoBrokenPullsAreBothFoundAndEveryOtherLands() {
    List<Pull> thirtyTwo = pulls(32);
    Set<Pull> broken = new HashSet<>(List.of(thirtyTwo.get(3), thirtyTwo.get(20)));
    Sim sim = new Sim(thirtyTwo, broken);
    sim.run(8, 2);
    assertEquals(30, sim.landed());
    assertEquals(broken, new HashSet<>(sim.ejected.stream().map(Eject::pull).toList()));
    assertTrue(sim.runs < 32, "fewer batch runs than pulls: " + sim.runs);
  }

  @Test
  void batchAndDepthMustBePositive() {
    assertThrows(
        IllegalArgumentException.class,
        () -> QueuePlan.fill(QueueState.empty(MAIN), pulls(1), "base", 0, 2));
  }
}
