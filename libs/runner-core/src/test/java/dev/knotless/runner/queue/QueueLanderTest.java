package dev.knotless.runner.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.queue.QueueLander.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueueLanderTest {

  private static final String OWNER = "did:plc:owner";
  private static final String COLLAB = "did:plc:collab";
  private static final String NAMED = "did:plc:named";

  @Test
  void theOwnersOwnRunnerLandsByPushingItself() {
    assertEquals(Role.OWNER, QueueLander.of(OWNER, OWNER, List.of(), List.of()));
    assertEquals(Role.OWNER, QueueLander.of(OWNER, OWNER, List.of(), List.of(NAMED)));
  }

  @Test
  void aCollaboratorsRunnerLandsThroughTheGateway() {
    assertEquals(
        Role.THROUGH_GATEWAY, QueueLander.of(COLLAB, OWNER, List.of(COLLAB), List.of(NAMED)));
  }

  @Test
  void aNamedRunnerLandsThroughTheGatewayOnlyWhenNoNamedRunnerWrites() {
    assertEquals(
        Role.THROUGH_GATEWAY, QueueLander.of(NAMED, OWNER, List.of(COLLAB), List.of(NAMED)));
    assertEquals(Role.NOT_HERE, QueueLander.of(NAMED, OWNER, List.of(), List.of(NAMED, OWNER)));
    assertEquals(
        Role.NOT_HERE, QueueLander.of(NAMED, OWNER, List.of(COLLAB), List.of(COLLAB, NAMED)));
  }

  @Test
  void aRunnerTheRepositoryDoesNotNameAndThatDoesNotWriteLandsNothing() {
    assertEquals(Role.NOT_HERE, QueueLander.of(NAMED, OWNER, List.of(), List.of()));
  }
}
