package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Write;
import dev.knotless.storage.push.PushPlan;
import dev.knotless.storage.push.RefDecision;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.storage.push.RefspecCheck;
import dev.knotless.storage.records.RefRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PushDecisionsTest {
  private static final String A = "a".repeat(40);
  private static final String B = "b".repeat(40);
  private static final String KEY = "3kabcdefghijk";
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  private static RefRecord at(String target, long gen) {
    return new RefRecord("k", "refs/heads/main", target, gen, "p1", null, null, null);
  }

  private static RefspecCheck.Local local(boolean has, boolean ancestor) {
    return new RefspecCheck.Local() {
      @Override
      public boolean has(String sha) {
        return has;
      }

      @Override
      public boolean isAncestor(String a, String d) {
        return ancestor;
      }
    };
  }

  @Test
  void anUnforcedUpdateOverAnUnseenTargetIsToldFetchFirst() throws Exception {
    var d =
        RefspecCheck.decide(
            new RefUpdate("refs/heads/main", B, false), at(A, 5), local(false, false));
    assertEquals("fetch first", ((RefDecision.Refused) d).reason());
  }

  @Test
  void anUnforcedUpdateThatIsNoDescendantIsNonFastForward() throws Exception {
    var d =
        RefspecCheck.decide(
            new RefUpdate("refs/heads/main", B, false), at(A, 5), local(true, false));
    assertEquals("non-fast-forward", ((RefDecision.Refused) d).reason());
  }

  @Test
  void aForcedUpdateSkipsTheChecksAndARefAtItsTargetWritesNothing() throws Exception {
    assertInstanceOf(
        RefDecision.Move.class,
        RefspecCheck.decide(
            new RefUpdate("refs/heads/main", B, true), at(A, 5), local(false, false)));
    assertInstanceOf(
        RefDecision.UpToDate.class,
        RefspecCheck.decide(
            new RefUpdate("refs/heads/main", A, false), at(A, 5), local(false, false)));
  }

  @Test
  void anEmptyPreSixRecordCountsAsNoRef() throws Exception {
    assertInstanceOf(
        RefDecision.Create.class,
        RefspecCheck.decide(
            new RefUpdate("refs/heads/main", B, false), at(null, 3), local(false, false)));
  }

  @Test
  void aMoveWritesItsClaimAtTheGenerationReadBesideTheRefAtTheNext() {
    var move = new RefDecision.Move(new RefUpdate("refs/heads/main", B, false), at(A, 7));
    List<Write> w = PushPlan.writesFor(KEY, move, "pk", NOW);
    assertEquals(Keys.claim(KEY, "refs/heads/main", 7), w.get(0).rkey());
    assertInstanceOf(Write.Create.class, w.get(0));
    assertEquals(8, ((Write.Update) w.get(1)).value().get("generation").asLong());
    assertEquals("pk", ((Write.Update) w.get(1)).value().get("pack").asText());
  }

  @Test
  void aNewRefStartsAtTheTimeInMillisecondsWithNoClaim() {
    var create = new RefDecision.Create(new RefUpdate("refs/heads/x", B, false), null);
    List<Write> w = PushPlan.writesFor(KEY, create, "pk", NOW);
    assertEquals(1, w.size());
    assertEquals(NOW.toEpochMilli(), ((Write.Create) w.get(0)).value().get("generation").asLong());
  }

  @Test
  void aDeleteTakesAClaimAndDeletesTheRecord() {
    var del = new RefDecision.Delete(new RefUpdate("refs/heads/main", null, false), at(A, 9));
    List<Write> w = PushPlan.writesFor(KEY, del, null, NOW);
    assertEquals(Keys.claim(KEY, "refs/heads/main", 9), w.get(0).rkey());
    assertInstanceOf(Write.Delete.class, w.get(1));
  }

  @Test
  void batchesHoldAtMostTwoHundredWritesWithEachClaimBesideItsRef() {
    List<RefDecision> refs = new ArrayList<>();
    List<List<Write>> writes = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      var d = new RefDecision.Move(new RefUpdate("refs/heads/b" + i, B, true), at(A, 1));
      refs.add(d);
      writes.add(PushPlan.writesFor(KEY, d, "pk", NOW));
    }
    List<Write> head = List.of(Write.delete("dev.knotless.pack", "x"));
    var batches = PushPlan.batches(head, refs, writes);
    assertEquals(2, batches.size());
    assertEquals(199, batches.get(0).writes().size());
    assertEquals(head.get(0), batches.get(0).writes().get(0));
    assertEquals(99, batches.get(0).refs().size());
    assertTrue(batches.stream().allMatch(b -> b.writes().size() <= 200));
  }

  @Test
  void aRefNamesThePushsPackOrThePackAnotherRefAtThatCommitNames() {
    var other = new RefRecord("k2", "refs/heads/dev", A, 3, "older", null, null, null);
    assertEquals("mine", PushPlan.packFor(B, "mine", Set.of(B), List.of(other)));
    assertEquals("older", PushPlan.packFor(A, "mine", Set.of(B), List.of(other)));
  }

  @Test
  void invalidRefNamesAreRefused() {
    for (String bad :
        List.of(
            "main",
            "refs/heads/a..b",
            "refs/heads/x.lock",
            "refs/heads/a b",
            "refs/heads/.hidden",
            "refs/heads/",
            "refs/heads/a~1",
            "refs/heads/a@{1}")) {
      assertThrows(IllegalArgumentException.class, () -> new RefUpdate(bad, A, false), bad);
    }
  }
}
