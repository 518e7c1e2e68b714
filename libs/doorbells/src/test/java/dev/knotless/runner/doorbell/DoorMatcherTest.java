package dev.knotless.runner.doorbell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.doorbell.RecordChange.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DoorMatcherTest {
  private static final String ALICE = "did:plc:alice";
  private static final String MALLORY = "did:plc:mallory";
  private static final RepoId APP = new RepoId(ALICE, "3kapp2222222a");
  private static final RepoId LIB = new RepoId(ALICE, "3klib2222222a");

  private final DoorMatcher matcher = new DoorMatcher();

  DoorMatcherTest() {
    matcher.watch(new WatchedRepo(APP, "app"));
    matcher.watch(new WatchedRepo(LIB, "lib"));
  }

  @Test
  void aRefOfAWatchedRepositoryRingsOnlyItsDoor() {
    assertEquals(
        Set.of(APP), matcher.match(change(ALICE, DoorMatcher.REF, "3kapp2222222a.abcdefgh")));
    assertEquals(
        Set.of(LIB),
        matcher.match(
            new RecordChange(ALICE, DoorMatcher.REF, "3klib2222222a.x", Operation.DELETE)));
  }

  @Test
  void aRerunOfAWatchedRepositoryRingsItsDoor() {
    assertEquals(
        Set.of(APP), matcher.match(change(ALICE, DoorMatcher.RERUN, "3kapp2222222a.3kzzz")));
  }

  @Test
  void aRecordWhoseKeyOnlyStartsLikeTheRepositoryKeyRingsNothing() {
    assertEquals(Set.of(), matcher.match(change(ALICE, DoorMatcher.REF, "3kapp2222222a")));
    assertEquals(Set.of(), matcher.match(change(ALICE, DoorMatcher.REF, "3kapp2222222ab.x")));
  }

  @Test
  void theSameKeyInSomeoneElsesAccountRingsNothing() {
    assertEquals(Set.of(), matcher.match(change(MALLORY, DoorMatcher.REF, "3kapp2222222a.x")));
    assertEquals(Set.of(), matcher.match(change(MALLORY, DoorMatcher.REPO, "app")));
  }

  @Test
  void theRepoRecordOfAWatchedNameRingsThatRepository() {
    assertEquals(Set.of(APP), matcher.match(change(ALICE, DoorMatcher.REPO, "app")));
    assertEquals(Set.of(), matcher.match(change(ALICE, DoorMatcher.REPO, "unwatched")));
  }

  @Test
  void aRenameMovesTheRepoRecordRuleToTheNewName() {
    matcher.watch(new WatchedRepo(APP, "app2"));

    assertEquals(Set.of(APP), matcher.match(change(ALICE, DoorMatcher.REPO, "app2")));
    assertEquals(Set.of(), matcher.match(change(ALICE, DoorMatcher.REPO, "app")));
    assertEquals(2, matcher.watched().size());
  }

  @Test
  void pullsStatesAndTheQueueRingNothingUntilARuleIsAdded() {
    for (String collection : List.of(DoorMatcher.PULL, DoorMatcher.STATE, DoorMatcher.QUEUE)) {
      assertEquals(Set.of(), matcher.match(change(ALICE, collection, "3kapp2222222a.x")));
    }
    assertEquals(
        Set.of(DoorMatcher.REF, DoorMatcher.RERUN, DoorMatcher.REPO), matcher.collections());

    matcher.addRule(DoorMatcher.PULL, (change, watched) -> Set.of(APP));

    assertEquals(Set.of(APP), matcher.match(change(MALLORY, DoorMatcher.PULL, "3kpull")));
    assertTrue(matcher.collections().contains(DoorMatcher.PULL));
  }

  @Test
  void aRuleThatNamesAnUnwatchedRepositoryIsAnError() {
    RepoId stranger = new RepoId(MALLORY, "3kstranger22a");
    matcher.addRule(DoorMatcher.QUEUE, (change, watched) -> Set.of(stranger));

    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> matcher.match(change(ALICE, DoorMatcher.QUEUE, "q")));
    assertTrue(e.getMessage().contains(stranger.toString()), e.getMessage());
  }

  @Test
  void ownersAreTheSubscriptionFilterAndTheirChangesAreAnnounced() {
    List<Set<String>> announced = new ArrayList<>();
    matcher.onOwnersChanged(() -> announced.add(matcher.owners()));

    matcher.watch(new WatchedRepo(new RepoId(ALICE, "3kthird222222"), "third"));
    RepoId bobs = new RepoId("did:plc:bob", "3kbob22222222");
    matcher.watch(new WatchedRepo(bobs, "tool"));
    matcher.unwatch(APP);
    matcher.unwatch(bobs);

    assertEquals(List.of(Set.of(ALICE, "did:plc:bob"), Set.of(ALICE)), announced);
    assertEquals(Set.of(), matcher.match(change(ALICE, DoorMatcher.REF, "3kapp2222222a.x")));
  }

  @Test
  void badIdsAreRefusedNamingTheValue() {
    IllegalArgumentException owner =
        assertThrows(IllegalArgumentException.class, () -> new RepoId("alice.test", "3kapp"));
    assertTrue(owner.getMessage().contains("\"alice.test\""), owner.getMessage());
    IllegalArgumentException key =
        assertThrows(IllegalArgumentException.class, () -> new RepoId(ALICE, "a.b"));
    assertTrue(key.getMessage().contains("\"a.b\""), key.getMessage());
    assertEquals(APP, RepoId.parse(APP.toString()));
  }

  private static RecordChange change(String did, String collection, String rkey) {
    return new RecordChange(did, collection, rkey, Operation.CREATE);
  }

  @Test
  void aRefMovingInAFollowedPullHeadRingsTheBaseAndItsOwnerIsSubscribedTo() {
    DoorMatcher matcher = new DoorMatcher();
    matcher.watch(new WatchedRepo(APP, "app"));
    int[] changes = {0};
    matcher.onOwnersChanged(() -> changes[0]++);
    RepoId fork = new RepoId("did:plc:forker", "3kfork111111a");
    RecordChange push =
        new RecordChange("did:plc:forker", DoorMatcher.REF, "3kfork111111a.x", Operation.UPDATE);
    assertEquals(Set.of(), matcher.match(push), "not followed: rings nothing");
    matcher.followPullHeads(APP, Set.of(fork));
    assertEquals(Set.of(APP), matcher.match(push));
    assertTrue(matcher.owners().contains("did:plc:forker"));
    assertEquals(1, changes[0], "the subscription widens");
    matcher.followPullHeads(APP, Set.of(fork));
    assertEquals(1, changes[0], "the same heads change nothing");
    assertEquals(
        Set.of(),
        matcher.match(
            new RecordChange(
                "did:plc:forker", DoorMatcher.REF, "3kother11111a.x", Operation.UPDATE)),
        "another repository of the fork's owner rings nothing");
    matcher.followPullHeads(APP, Set.of());
    assertEquals(Set.of(), matcher.match(push), "the pull closed: followed no more");
    assertEquals(2, changes[0]);
  }
}
