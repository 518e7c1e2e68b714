package dev.knotless.storage.push;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.storage.records.RefRecord;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AfterRefusalTest {
  private static final String A = "a".repeat(40);
  private static final String B = "b".repeat(40);
  private static final Instant AT = Instant.parse("2026-12-01T10:00:00Z");

  private static RefRecord ref(String target, long generation) {
    return new RefRecord("k", "refs/heads/main", target, generation, null, null, null, null);
  }

  private static RefDecision.Move move() {
    return new RefDecision.Move(new RefUpdate("refs/heads/main", B, false), ref(A, 7));
  }

  @Test
  void aMoveFoundAtItsTargetOneGenerationUpLanded() {
    assertTrue(AfterRefusal.landed(List.of(move()), Map.of("refs/heads/main", ref(B, 8)), AT));
  }

  @Test
  void aMoveFoundWhereItWasReadOrMovedByAnotherWriterDidNotLand() {
    assertFalse(AfterRefusal.landed(List.of(move()), Map.of("refs/heads/main", ref(A, 7)), AT));
    // Another writer moved it elsewhere, or to the same commit a generation further on.
    assertFalse(AfterRefusal.landed(List.of(move()), Map.of("refs/heads/main", ref(A, 8)), AT));
    assertFalse(AfterRefusal.landed(List.of(move()), Map.of("refs/heads/main", ref(B, 9)), AT));
    assertTrue(AfterRefusal.moved(move(), ref(A, 8)));
    assertFalse(AfterRefusal.moved(move(), ref(A, 7)));
  }

  @Test
  void aNewRefLandedOnlyAtTheGenerationItsPushGaveIt() {
    RefDecision.Create create =
        new RefDecision.Create(new RefUpdate("refs/heads/main", B, false), null);
    long millis = AT.toEpochMilli();
    assertTrue(AfterRefusal.landed(List.of(create), Map.of("refs/heads/main", ref(B, millis)), AT));
    assertFalse(
        AfterRefusal.landed(List.of(create), Map.of("refs/heads/main", ref(B, millis + 1)), AT));
    assertFalse(AfterRefusal.landed(List.of(create), Map.of(), AT));
  }

  @Test
  void aBatchOfDeletesLandedWhenEveryRefIsGone() {
    RefDecision.Delete delete =
        new RefDecision.Delete(new RefUpdate("refs/heads/main", null, false), ref(A, 7));
    assertTrue(AfterRefusal.landed(List.of(delete), Map.of(), AT));
    assertFalse(AfterRefusal.landed(List.of(delete), Map.of("refs/heads/main", ref(A, 7)), AT));
  }
}
