package dev.knotless.runner.state.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.WaitReason;
import dev.knotless.runner.state.pg.PgRunQueue.IssuedRun;
import dev.knotless.runner.state.pg.PgRunQueue.Row;
import dev.knotless.runner.state.pg.PgRunQueue.Run;
import dev.knotless.testing.infra.EmbeddedPg;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The run queue as the reconcilers' workers and the scheduler use it, on a real PostgreSQL: who
 * holds a run, when a silent worker's run is taken over, what the scheduler sees and takes.
 */
class PgRunQueueIT {
  private static final Duration STALE = Duration.ofMinutes(1);
  private static final String MAIN = "refs/heads/main";

  private static EmbeddedPg pg;
  private static PGSimpleDataSource db;
  private static PgRunQueue queue;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPg.start();
    db = MigratedDb.open(pg);
    queue = new PgRunQueue(db);
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @BeforeEach
  void emptyTheQueue() throws Exception {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("truncate run_queue, run_issued");
    }
  }

  @Test
  void aCheckHeldByALiveWorkerIsNotClaimedByAnother() throws Exception {
    assertTrue(queue.claim(run("k1", "c1", null), "a", STALE));
    assertFalse(queue.claim(run("k1", "c1", null), "b", STALE), "a is alive");
    assertEquals(1, queue.heartbeat("a"));
    assertEquals("a", only(queue.waiting(RunClass.MAIN)).worker());
  }

  @Test
  void aSilentWorkersRunIsTakenOverAndTakenOffTheQueueOnce() throws Exception {
    queue.claim(run("k1", "c1", null), "a", STALE);
    assertEquals(1, queue.release("a"));
    assertEquals(List.of("k1"), keys(queue.stale(STALE)));
    assertTrue(queue.takeStale("k1", STALE));
    assertFalse(queue.takeStale("k1", STALE), "the other recovering worker gets false");

    queue.claim(run("k2", "c2", null), "a", STALE);
    queue.release("a");
    assertTrue(queue.claim(run("k2", "c2", null), "b", STALE), "a stale holder is taken over");
    assertEquals(List.of(), queue.stale(STALE));
  }

  @Test
  void aHandedBackRunIsNoLongerStampedByItsWorker() throws Exception {
    queue.claim(run("k1", "c1", null), "a", STALE);
    assertTrue(queue.releaseOne("k1", "a"));
    assertEquals(0, queue.heartbeat("a"));
    assertEquals("a/handed-back", only(queue.stale(STALE)).worker());
  }

  @Test
  void aRunStartsOnceAndGoesOnlyWithTheWorkerHoldingIt() throws Exception {
    queue.claim(run("k1", "c1", null), "a", STALE);
    assertTrue(queue.start("k1"));
    assertFalse(queue.start("k1"), "it was not waiting");
    assertEquals(Map.of(), nonZero(queue.waitingByClass()));
    assertFalse(queue.remove("k1", "b"));
    assertTrue(queue.remove("k1", "a"));
  }

  @Test
  void theSchedulerSeesOnlyOrderedRunsAndTakesEachFromWhoeverHeldIt() throws Exception {
    assertTrue(queue.file(run("k1", "c1", "{\"o\":1}")));
    assertFalse(queue.file(run("k1", "c1", "{\"o\":1}")), "queued already");
    queue.claim(run("k2", "c2", null), "worker", STALE); // a worker's own run, no order
    assertTrue(queue.file(run("k3", "c3", "{\"o\":3}")));

    List<Row> seen = queue.ordersNotHeldBy("s1", 10);
    assertEquals(List.of("k1", "k3"), keys(seen));
    assertEquals("{\"o\":1}", seen.get(0).run().order());
    assertTrue(queue.take("k1", "s1", null));
    assertFalse(queue.take("k1", "s2", null), "s1 took it meanwhile");
    assertEquals(List.of("k3"), keys(queue.ordersNotHeldBy("s1", 10)));
    assertTrue(queue.take("k1", "s2", "s1"), "a new leader takes over");
    assertEquals(Map.of(RunClass.MAIN, 3L), nonZero(queue.waitingByClass()));
  }

  @Test
  void aQueuedRunKeepsTheTraceItWasFiledWithForTheScheduler() throws Exception {
    String parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    assertTrue(queue.file(run("k1", "c1", "{}"), parent));
    assertTrue(queue.file(run("k2", "c2", "{}")));
    assertEquals(java.util.Optional.of(parent), queue.traceOf("k1"));
    assertEquals(java.util.Optional.empty(), queue.traceOf("k2"), "filed with none");
    assertEquals(java.util.Optional.empty(), queue.traceOf("k9"), "no such row");
    // A second filing of a queued check leaves its row, trace and all, as it was.
    assertFalse(queue.file(run("k1", "c1", "{}"), null));
    assertEquals(java.util.Optional.of(parent), queue.traceOf("k1"));
  }

  @Test
  void aRunBehindARunningRunOfItsWorkflowWaitsForItsTurnAndAnotherForAJob() throws Exception {
    queue.file(run("k1", "c1", "{}"));
    queue.file(run("k2", "c2", "{}"));
    queue.file(
        new Run("k3", REPO, "did:plc:alice", RunClass.OTHER, "lint", "c2", MAIN, null, "{}"));
    assertEquals(2L, queue.waitingByClassAndReason().get(RunClass.MAIN).get(WaitReason.JOB));
    assertTrue(queue.start("k1"));
    var waiting = queue.waitingByClassAndReason();
    assertEquals(1L, waiting.get(RunClass.MAIN).get(WaitReason.TURN), "k2, behind k1: " + waiting);
    assertEquals(0L, waiting.get(RunClass.MAIN).get(WaitReason.JOB));
    assertEquals(1L, waiting.get(RunClass.OTHER).get(WaitReason.JOB), "another workflow's run");
    assertEquals(0L, waiting.get(RunClass.LATER).get(WaitReason.TURN), "every pair is there");
  }

  @Test
  void aNewerCommitMarksTheOlderRunAnotherWorkerHolds() throws Exception {
    queue.claim(run("k1", "c1", null), "a", STALE);
    queue.claim(run("k2", "c2", null), "b", STALE);
    assertEquals(1, queue.supersedeElsewhere(run("k2", "c2", null), "b"));
    assertEquals(0, queue.supersedeElsewhere(run("k2", "c2", null), "b"), "marked once");
    assertEquals(List.of("k1"), queue.superseded("a"));
    assertEquals(List.of(), queue.superseded("b"));
  }

  @Test
  void everyRunQueuedOrIssuedDirectlyIsIssuedAndForgottenOnlyOnceItsRowGoes() throws Exception {
    queue.file(run("k1", "c1", "{}"));
    queue.issue(run("k2", "c2", null));
    try (Connection c = db.getConnection()) {
      assertEquals(Optional.of(new IssuedRun(REPO, "c1", "ci")), PgRunQueue.issued(c, "k1"));
      assertEquals(Optional.of(new IssuedRun(REPO, "c2", "ci")), PgRunQueue.issued(c, "k2"));
      assertEquals(Optional.empty(), PgRunQueue.issued(c, "k3"));
    }
    assertEquals(1, queue.forgetIssued(Duration.ZERO), "k1 is still queued");
  }

  @Test
  void aRunIssuedLatelyCountsAsHandedOnWhileQueuedOrOnceItsRunWasHeardOfNotBefore()
      throws Exception {
    Duration hour = Duration.ofHours(1);
    // Issued, then the reconciler died before queueing it: never handed on, so it runs again.
    queue.issue(run("k0", "c0", null));
    assertFalse(queue.handedOnWithin("k0", hour), "issued but never queued");
    queue.claim(run("k1", "c1", null), "a", STALE);
    assertTrue(queue.handedOnWithin("k1", hour), "queued");
    PgCheckLedger ledger = new PgCheckLedger(db);
    ledger.withCheck(
        "k1",
        k -> {
          k.start("{\"type\":\"filed\"}");
          return k.addEvent("{\"type\":\"started\"}");
        });
    assertTrue(queue.remove("k1", "a"), "its run ended");
    assertTrue(queue.handedOnWithin("k1", hour), "its row went, but its run was heard of");
    assertFalse(queue.handedOnWithin("k2", hour), "never issued");
    try (Connection c = db.getConnection();
        var st =
            c.prepareStatement("update run_issued set issued_at = now() - interval '2 hours'")) {
      st.executeUpdate();
    }
    assertFalse(queue.handedOnWithin("k1", hour), "issued too long ago to be a cut");
  }

  private static final String REPO = "did:plc:alice/site";

  private static Run run(String key, String commit, String order) {
    return new Run(key, REPO, "did:plc:alice", RunClass.MAIN, "ci", commit, MAIN, null, order);
  }

  private static Row only(List<Row> rows) {
    assertEquals(1, rows.size(), rows.toString());
    return rows.get(0);
  }

  private static List<String> keys(List<Row> rows) {
    return rows.stream().map(r -> r.run().checkKey()).toList();
  }

  private static Map<RunClass, Long> nonZero(Map<RunClass, Long> counts) {
    return Map.copyOf(
        counts.entrySet().stream()
            .filter(e -> e.getValue() > 0)
            .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
  }
}
