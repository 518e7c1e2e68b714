package dev.knotless.runner.doorbell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.doorbell.RecordChange.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The pull side's doorbells as both shapes turn them on: pulls, their states and queue records
 * keyed under a watched repository, and refs moving in the heads of its open pulls.
 */
class PullDoorsTest {
  private static final String ALICE = "did:plc:alice";
  private static final String BOB = "did:plc:bob";
  private static final String FORKER = "did:plc:forker";
  private static final RepoId APP = new RepoId(ALICE, "3kapp2222222a");
  private static final RepoId LIB = new RepoId(ALICE, "3klib2222222a");
  private static final RepoId FORK = new RepoId(FORKER, "3kfork222222a");
  private static final String UNWATCHED_KEY = "3kother22222a";

  private static DoorMatcher matcher(PullDoors doors) {
    DoorMatcher m = doors.addTo(new DoorMatcher());
    m.watch(new WatchedRepo(APP, "app"));
    m.watch(new WatchedRepo(LIB, "lib"));
    return m;
  }

  private static RecordChange change(String did, String collection, String rkey) {
    return new RecordChange(did, collection, rkey, Operation.CREATE);
  }

  @Test
  void aPullAnyoneWritesUnderAWatchedRepositorysKeyRingsThatRepositoryAlone() {
    DoorMatcher m = matcher(new PullDoors(true, false));

    assertEquals(Set.of(APP), m.match(change(BOB, DoorMatcher.PULL, APP.repoKey() + ".3kpull1")));
    assertEquals(Set.of(LIB), m.match(change(ALICE, DoorMatcher.PULL, LIB.repoKey() + ".3kp2")));
  }

  @Test
  void aPullStateClosingOrReopeningAPullRingsItsBaseWhateverTheOperation() {
    DoorMatcher m = matcher(new PullDoors(true, false));

    for (Operation op : Operation.values()) {
      assertEquals(
          Set.of(APP),
          m.match(new RecordChange(ALICE, DoorMatcher.STATE, APP.repoKey() + ".3kstate", op)),
          op.toString());
    }
  }

  @Test
  void aPullIntoAnUnwatchedRepositoryOrARecordOfAnotherCollectionRingsNothing() {
    DoorMatcher m = matcher(new PullDoors(true, true));

    assertEquals(Set.of(), m.match(change(BOB, DoorMatcher.PULL, UNWATCHED_KEY + ".3kpull1")));
    assertEquals(Set.of(), m.match(change(BOB, DoorMatcher.STATE, UNWATCHED_KEY + ".3kstate")));
    assertEquals(Set.of(), m.match(change(BOB, DoorMatcher.QUEUE, UNWATCHED_KEY + ".3kq")));
    assertEquals(Set.of(), m.match(change(BOB, DoorMatcher.PULL, APP.repoKey())));
    assertEquals(
        Set.of(), m.match(change(BOB, "dev.knotless.comment", APP.repoKey() + ".3kcomment")));
    assertEquals(Set.of(), m.match(change(BOB, DoorMatcher.REF, APP.repoKey() + ".x")));
  }

  @Test
  void withPullsOffPullsAndStatesRingNothingAndAreNotSubscribedTo() {
    DoorMatcher m = matcher(PullDoors.NONE);

    assertEquals(Set.of(), m.match(change(ALICE, DoorMatcher.PULL, APP.repoKey() + ".3kpull1")));
    assertEquals(Set.of(), m.match(change(ALICE, DoorMatcher.STATE, APP.repoKey() + ".3ks")));
    assertEquals(
        Set.of(DoorMatcher.REF, DoorMatcher.RERUN, DoorMatcher.REPO), Set.copyOf(m.collections()));
  }

  @Test
  void aQueueRecordRingsItsBaseOnlyWithTheQueueOn() {
    String key = APP.repoKey() + ".3kqueue";

    assertEquals(
        Set.of(), matcher(new PullDoors(true, false)).match(change(ALICE, DoorMatcher.QUEUE, key)));
    DoorMatcher withQueue = matcher(new PullDoors(true, true));
    assertEquals(Set.of(APP), withQueue.match(change(ALICE, DoorMatcher.QUEUE, key)));
    assertEquals(Set.of(APP), withQueue.match(change(BOB, DoorMatcher.QUEUE, key)));
    assertTrue(withQueue.collections().contains(DoorMatcher.QUEUE));
  }

  @Test
  void theQueueWithoutPullsIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new PullDoors(false, true));
    assertTrue(e.getMessage().contains("needs pulls"), e.getMessage());
  }

  @Test
  void aRefMovingInAFollowedForkRingsItsBaseUntilThePullClosesAndTheForkIsSubscribedMeanwhile() {
    DoorMatcher m = matcher(new PullDoors(true, false));
    List<Set<String>> subscribed = new ArrayList<>();
    m.onOwnersChanged(() -> subscribed.add(Set.copyOf(m.owners())));
    RecordChange push = change(FORKER, DoorMatcher.REF, FORK.repoKey() + ".headsfix");

    assertEquals(Set.of(), m.match(push), "no pull from the fork is known yet");
    m.followAllPullHeads(Map.of(APP, Set.of(FORK)));
    assertEquals(Set.of(APP), m.match(push), "a push to the pull's head rings its base");
    assertEquals(
        Set.of(),
        m.match(change(FORKER, DoorMatcher.RERUN, FORK.repoKey() + ".x")),
        "only a ref moving in the head rings");
    assertEquals(
        Set.of(),
        m.match(change(FORKER, DoorMatcher.REF, "3kforkother2a.x")),
        "another repository of the fork's owner rings nothing");
    assertEquals(List.of(Set.of(ALICE, FORKER)), subscribed);

    m.followAllPullHeads(Map.of(APP, Set.of(FORK)));
    assertEquals(1, subscribed.size(), "the same heads read again change nothing");

    // The pull closed: the reconcilers' next read of the base has no head in the fork.
    m.followAllPullHeads(Map.of());
    assertEquals(Set.of(), m.match(push), "the pull closed: the fork's pushes ring nothing");
    assertEquals(List.of(Set.of(ALICE, FORKER), Set.of(ALICE)), subscribed);
    assertEquals(Map.of(), m.pullHeads());
  }

  @Test
  void aForkFollowedForTwoBasesRingsBothAndStopsForEachAsItsPullCloses() {
    DoorMatcher m = matcher(new PullDoors(true, false));
    RecordChange push = change(FORKER, DoorMatcher.REF, FORK.repoKey() + ".headsfix");

    m.followAllPullHeads(Map.of(APP, Set.of(FORK), LIB, Set.of(FORK)));
    assertEquals(Set.of(APP, LIB), m.match(push));
    m.followAllPullHeads(Map.of(LIB, Set.of(FORK), APP, Set.of()));
    assertEquals(Set.of(LIB), m.match(push));
    assertEquals(Map.of(LIB, Set.of(FORK)), m.pullHeads(), "an empty set follows nothing");
  }

  @Test
  void aFollowedForkOfABaseNoLongerWatchedRingsNothing() {
    DoorMatcher m = matcher(new PullDoors(true, false));
    m.followAllPullHeads(Map.of(APP, Set.of(FORK)));

    m.unwatch(APP);

    assertEquals(Set.of(), m.match(change(FORKER, DoorMatcher.REF, FORK.repoKey() + ".headsfix")));
  }
}
