package dev.knotless.runner.discover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.doorbell.DoorMatcher;
import dev.knotless.runner.doorbell.RecordChange;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WatchedRepo;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RingUnwatchedTest {
  static final RepoId APP = new RepoId("did:plc:alice", "3kaaaaaaaaaa1");

  private final List<RepoId> asked = new ArrayList<>();
  private final DoorMatcher matcher = new DoorMatcher();

  RingUnwatchedTest() {
    matcher.watch(new WatchedRepo(APP, "app"));
    matcher.addRule(DoorMatcher.REPO, Discoverer.ringUnwatched(asked::add));
  }

  private Set<RepoId> change(String did, String name, RecordChange.Operation op) {
    return matcher.match(new RecordChange(did, DoorMatcher.REPO, name, op));
  }

  @Test
  void aWatchedRepositorysRecordRingsItsOwnDoorAndAsksForNothing() {
    assertEquals(Set.of(APP), change("did:plc:alice", "app", RecordChange.Operation.UPDATE));
    assertTrue(asked.isEmpty());
  }

  @Test
  void aRecordWrittenForOneNotWatchedAsksForItByOwnerAndNameWithoutRingingAWatchedDoor() {
    assertEquals(Set.of(), change("did:plc:bob", "site", RecordChange.Operation.CREATE));
    assertEquals(Set.of(), change("did:plc:alice", "other", RecordChange.Operation.UPDATE));
    assertEquals(
        List.of(new RepoId("did:plc:bob", "site"), new RepoId("did:plc:alice", "other")), asked);
  }

  @Test
  void aDeletedRecordOrANameThatCannotBeAKeyAsksForNothing() {
    change("did:plc:bob", "site", RecordChange.Operation.DELETE);
    change("did:plc:bob", "my.site", RecordChange.Operation.CREATE);
    assertTrue(asked.isEmpty(), asked.toString());
  }
}
