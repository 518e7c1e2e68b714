package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.space.SpaceId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NotifyRenewalsTest {
  private static final Instant T0 = Instant.parse("2026-12-05T00:00:00Z");
  private static final SpaceId A = new SpaceId("did:plc:alice", "site");
  private static final SpaceId B = new SpaceId("did:plc:bob", "notes");

  @Test
  void aSpaceNewlyWatchedIsDueAtOnceThenEveryTwelveHours() {
    NotifyRenewals r = new NotifyRenewals();
    assertEquals(List.of(A), r.due(Set.of(A), T0));
    r.registered(A, T0, T0.plus(Duration.ofDays(1)));
    assertTrue(r.registered(A, T0));
    assertEquals(List.of(), r.due(Set.of(A), T0.plus(Duration.ofHours(11).plusMinutes(59))));
    Instant noon = T0.plus(Duration.ofHours(12));
    assertEquals(List.of(A), r.due(Set.of(A), noon));
    r.registered(A, noon, noon.plus(Duration.ofDays(1)));
    assertEquals(List.of(), r.due(Set.of(A), noon.plus(Duration.ofHours(11))));
    assertEquals(List.of(A), r.due(Set.of(A), noon.plus(Duration.ofHours(12))));
  }

  @Test
  void anAskKeptLessThanADayIsMadeAgainHalfwayToItsEnd() {
    NotifyRenewals r = new NotifyRenewals();
    r.due(Set.of(A), T0);
    r.registered(A, T0, T0.plus(Duration.ofHours(2)));
    assertEquals(List.of(), r.due(Set.of(A), T0.plus(Duration.ofMinutes(59))));
    assertEquals(List.of(A), r.due(Set.of(A), T0.plus(Duration.ofHours(1))));
  }

  @Test
  void aFailedAskIsTriedAgainInFiveMinutesAndWhatWasRegisteredStandsTillItEnds() {
    NotifyRenewals r = new NotifyRenewals();
    r.due(Set.of(A), T0);
    r.registered(A, T0, T0.plus(Duration.ofDays(1)));
    Instant noon = T0.plus(Duration.ofHours(12));
    r.failed(A, noon);
    assertEquals(List.of(), r.due(Set.of(A), noon.plus(Duration.ofMinutes(4))));
    assertEquals(List.of(A), r.due(Set.of(A), noon.plus(Duration.ofMinutes(5))));
    assertTrue(r.registered(A, T0.plus(Duration.ofHours(23))), "the earlier ask still stands");
    assertFalse(r.registered(A, T0.plus(Duration.ofDays(1))), "and ends when it said");
  }

  @Test
  void aSpaceNoLongerWatchedIsForgottenAndOneNeverRegisteredIsNotCovered() {
    NotifyRenewals r = new NotifyRenewals();
    assertEquals(List.of(A, B), r.due(Set.of(A, B), T0));
    r.registered(A, T0, T0.plus(Duration.ofDays(1)));
    r.failed(B, T0);
    assertFalse(r.registered(B, T0));
    assertEquals(List.of(), r.due(Set.of(B), T0.plus(Duration.ofMinutes(1))));
    assertFalse(r.registered(A, T0), "A left, its ask forgotten");
    assertEquals(List.of(A), r.due(Set.of(A, B), T0.plus(Duration.ofMinutes(1))), "A new again");
  }
}
