package dev.knotless.runner.state.pg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.state.pg.PgRunQueue.IssuedRun;
import dev.knotless.testing.infra.EmbeddedPg;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The check-writer's ledger on a real PostgreSQL, its schema made by the migrations. */
class PgCheckLedgerIT {
  private static EmbeddedPg pg;
  private static PGSimpleDataSource db;
  private static PgCheckLedger ledger;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPg.start();
    db = MigratedDb.open(pg);
    ledger = new PgCheckLedger(db);
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @Test
  void aRunPutInTheQueueIsIssuedAndStaysIssuedAfterItsRowGoes() throws Exception {
    queue("k-issued", "did:plc:o/3krepo", "c1", "ci");
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement("delete from run_queue where check_key = ?")) {
      s.setString(1, "k-issued");
      s.executeUpdate();
    }
    assertEquals(
        Optional.of(new IssuedRun("did:plc:o/3krepo", "c1", "ci")),
        ledger.withCheck("k-issued", PgCheckLedger.Kept::issued));
    assertEquals(Optional.empty(), ledger.withCheck("k-never", PgCheckLedger.Kept::issued));
  }

  @Test
  void aCheckKeepsItsEventsOnceAndItsLogInOrderThenForgetsThemWhenDone() throws Exception {
    ledger.withCheck("k-log", k -> start(k));
    boolean first = ledger.withCheck("k-log", k -> k.addEvent("{\"type\":\"started\"}"));
    boolean again = ledger.withCheck("k-log", k -> k.addEvent("{\"type\":\"started\"}"));
    assertTrue(first, "a new event is kept");
    assertFalse(again, "the same event again is not");
    ledger.withCheck("k-log", k -> append(k, 0, "one\n"));
    ledger.withCheck("k-log", k -> append(k, 4, "two\n"));
    assertThrows(
        IllegalArgumentException.class, () -> ledger.withCheck("k-log", k -> append(k, 2, "x")));
    assertArrayEquals(bytes("one\ntwo\n"), ledger.withCheck("k-log", PgCheckLedger.Kept::log));
    assertEquals(
        List.of("{\"type\":\"started\"}"), ledger.withCheck("k-log", PgCheckLedger.Kept::events));
    ledger.withCheck("k-log", k -> done(k));
    ledger.withCheck(
        "k-log",
        k -> {
          assertTrue(k.done());
          assertEquals(Optional.of("{\"type\":\"filed\"}"), k.filed());
          assertEquals(0, k.log().length);
          return null;
        });
  }

  @Test
  void aLogIsReadByRangeAcrossPiecesAndCutBackInsideOne() throws Exception {
    ledger.withCheck("k-cut", k -> start(k));
    ledger.withCheck("k-cut", k -> append(k, 0, "one\n"));
    ledger.withCheck("k-cut", k -> append(k, 4, "two\n"));
    ledger.withCheck("k-cut", k -> append(k, 8, "three\n"));
    assertArrayEquals(bytes("\ntwo\nthr"), ledger.withCheck("k-cut", k -> k.logRange(3, 8)));
    assertThrows(
        IllegalArgumentException.class, () -> ledger.withCheck("k-cut", k -> k.logRange(10, 9)));
    ledger.withCheck(
        "k-cut",
        k -> {
          k.truncateLog(6);
          return null;
        });
    assertEquals(6L, ledger.withCheck("k-cut", PgCheckLedger.Kept::logLength));
    assertArrayEquals(bytes("one\ntw"), ledger.withCheck("k-cut", PgCheckLedger.Kept::log));
    ledger.withCheck("k-cut", k -> append(k, 6, "ice\n"));
    assertArrayEquals(bytes("one\ntwice\n"), ledger.withCheck("k-cut", PgCheckLedger.Kept::log));
  }

  @Test
  void workThatThrowsLeavesTheCheckAsItWas() throws Exception {
    ledger.withCheck("k-rollback", k -> start(k));
    assertThrows(
        IOException.class,
        () ->
            ledger.withCheck(
                "k-rollback",
                k -> {
                  append(k, 0, "lost\n");
                  throw new IOException("the PDS said no");
                }));
    assertEquals(0L, ledger.withCheck("k-rollback", PgCheckLedger.Kept::logLength));
  }

  @Test
  void twoReplicasWorkingOnOneCheckTakeTurns() throws Exception {
    ledger.withCheck("k-turns", k -> start(k));
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> first =
          pool.submit(
              () ->
                  ledger.withCheck(
                      "k-turns",
                      k -> {
                        append(k, 0, "first\n");
                        inside.countDown();
                        try {
                          release.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                        return null;
                      }));
      assertTrue(inside.await(10, TimeUnit.SECONDS));
      // The second sees the first's bytes once it commits, and appends after them.
      Future<Long> second = pool.submit(() -> ledger.withCheck("k-turns", k -> k.logLength()));
      Thread.sleep(300);
      assertFalse(second.isDone(), "the second waited for the first's lock");
      release.countDown();
      first.get(10, TimeUnit.SECONDS);
      assertEquals(6L, second.get(10, TimeUnit.SECONDS));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void checksEndedLongAgoArePruned() throws Exception {
    ledger.withCheck("k-old", k -> start(k));
    ledger.withCheck("k-old", k -> done(k));
    assertEquals(0, ledger.prune(Duration.ofDays(30)), "a check ended now stays");
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "update check_run set updated_at = now() - interval '31 days'"
                    + " where check_key = 'k-old'")) {
      s.executeUpdate();
    }
    assertTrue(ledger.prune(Duration.ofDays(30)) >= 1);
    assertEquals(Optional.empty(), ledger.withCheck("k-old", PgCheckLedger.Kept::filed));
  }

  private static Object start(PgCheckLedger.Kept k) throws SQLException {
    k.start("{\"type\":\"filed\"}");
    return null;
  }

  private static Object append(PgCheckLedger.Kept k, long offset, String text) throws SQLException {
    k.appendLog(offset, bytes(text));
    return null;
  }

  private static Object done(PgCheckLedger.Kept k) throws SQLException {
    k.markDone();
    return null;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void queue(String key, String repo, String commit, String workflow)
      throws Exception {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "insert into run_queue (id, check_key, repo, owner_did, run_class, state,"
                    + " workflow, commit_id, created_seq, created_at) values"
                    + " (nextval('run_queue_seq'), ?, ?, 'did:plc:o', 'MAIN', 'WAITING', ?, ?,"
                    + " nextval('run_queue_order'), now())")) {
      s.setString(1, key);
      s.setString(2, repo);
      s.setString(3, workflow);
      s.setString(4, commit);
      s.executeUpdate();
    }
  }
}
