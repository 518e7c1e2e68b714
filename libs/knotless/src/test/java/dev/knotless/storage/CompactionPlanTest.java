package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Tid;
import dev.knotless.storage.compact.CompactionPlan;
import dev.knotless.storage.records.ClaimRecord;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RefRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompactionPlanTest {
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  private static final String KEY = "3kabcdefghijk";
  private static final String A = "a".repeat(40);
  private static final String B = "b".repeat(40);

  private static PackRecord pack(Duration age, List<String> bases) {
    long micros = NOW.minus(age).toEpochMilli() * 1000;
    return new PackRecord(
        Keys.pack(KEY, Tid.of(micros, 1)),
        List.of(A),
        bases,
        1,
        1,
        new byte[] {0},
        List.of(),
        List.of(),
        null);
  }

  @Test
  void onlyPacksOlderThanTenMinutesFoldAndAtLeastTwoAreNeeded() {
    var plan =
        CompactionPlan.decide(
            List.of(
                pack(Duration.ofMinutes(9), List.of()), pack(Duration.ofMinutes(11), List.of())),
            List.of(),
            List.of(),
            NOW,
            Duration.ofDays(1));
    assertEquals(1, plan.old().size());
    assertFalse(plan.folds());
    var two =
        CompactionPlan.decide(
            List.of(
                pack(Duration.ofMinutes(12), List.of()), pack(Duration.ofMinutes(11), List.of())),
            List.of(),
            List.of(),
            NOW,
            Duration.ofDays(1));
    assertTrue(two.folds());
  }

  @Test
  void theFoldListsOneTipPerLiveRefAndHoldsTheBasesOfYoungPacksBeside() {
    var refs =
        List.of(
            new RefRecord("k1", "refs/heads/main", A, 2, null, null, null, null),
            new RefRecord("k2", "refs/heads/gone", null, 2, null, null, null, null),
            new RefRecord("k3", "refs/tags/v1", A, 5, null, null, null, null));
    var young = List.of(pack(Duration.ZERO, List.of(B)));
    assertEquals(List.of(A), CompactionPlan.tips(refs));
    assertEquals(List.of(A, B), CompactionPlan.contents(refs, young));
  }

  @Test
  void staleClaimsArePrunedWithNoFoldToMake() {
    var claims =
        List.of(
            new ClaimRecord("c1", A, B, null, NOW.minus(Duration.ofHours(25)).toString(), null));
    var plan =
        CompactionPlan.decide(
            List.of(pack(Duration.ofHours(30), List.of())),
            claims,
            List.of(),
            NOW,
            Duration.ofDays(1));
    assertFalse(plan.folds());
    assertTrue(plan.prunes());
    assertFalse(
        CompactionPlan.decide(List.of(), List.of(), List.of(), NOW, Duration.ofDays(1)).prunes());
  }

  @Test
  void claimsAndEmptyRefsADayOldGoAndYoungerOnesStay() {
    var claims =
        List.of(
            new ClaimRecord("c1", A, B, null, NOW.minus(Duration.ofHours(25)).toString(), null),
            new ClaimRecord("c2", A, B, null, NOW.minus(Duration.ofHours(23)).toString(), null));
    var refs =
        List.of(
            new RefRecord("r1", "refs/heads/x", null, 3, null, null, null, null),
            new RefRecord(
                "r2", "refs/heads/y", null, 3, null, NOW.toString(), NOW.toString(), null));
    var plan = CompactionPlan.decide(List.of(), claims, refs, NOW, Duration.ofDays(1));
    assertEquals(List.of("c1"), plan.staleClaims().stream().map(ClaimRecord::rkey).toList());
    assertEquals(List.of("r1"), plan.emptyRefs().stream().map(RefRecord::rkey).toList());
  }
}
