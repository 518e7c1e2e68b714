package dev.knotless.run.ingester;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.run.ingester.domain.WatchChange;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WatchedRepo;
import java.util.List;
import org.junit.jupiter.api.Test;

class WatchChangeTest {
  static final WatchedRepo APP = new WatchedRepo(new RepoId("did:plc:a", "3kaaaaaaaaaa1"), "app");
  static final WatchedRepo SITE = new WatchedRepo(new RepoId("did:plc:b", "3kbbbbbbbbbb1"), "site");

  @Test
  void aRepositoryListedSinceTheLastReadIsAddedAndOneGoneIsRemoved() {
    WatchChange c = WatchChange.between(List.of(APP), List.of(SITE));
    assertEquals(List.of(SITE), c.added());
    assertEquals(List.of(APP.id()), c.removed());
  }

  @Test
  void aRenameIsAddedAgainUnderItsNewNameAndTheSameListChangesNothing() {
    WatchedRepo renamed = new WatchedRepo(APP.id(), "app2");
    WatchChange c = WatchChange.between(List.of(APP), List.of(renamed));
    assertEquals(List.of(renamed), c.added());
    assertTrue(c.removed().isEmpty());
    assertTrue(WatchChange.between(List.of(APP, SITE), List.of(SITE, APP)).none());
  }
}
