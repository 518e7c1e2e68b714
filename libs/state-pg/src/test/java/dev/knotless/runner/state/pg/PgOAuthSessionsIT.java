package dev.knotless.runner.state.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.testing.infra.EmbeddedPg;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The runner's OAuth session the services' replicas share, on a real PostgreSQL: seeded from the
 * mounted file only when it is new, and a second replica's refresh waiting for the first's row
 * lock, then reading what the first saved.
 */
class PgOAuthSessionsIT {
  private static final Instant LOGIN = Instant.parse("2026-12-01T10:00:00Z");
  private static EmbeddedPg pg;
  private static PGSimpleDataSource db;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPg.start();
    db = MigratedDb.open(pg);
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @Test
  void theFileSeedsOnlyAnAccountWithNoSessionOrANewerLogin() throws Exception {
    PgOAuthSessions s = new PgOAuthSessions(db);
    String did = "did:plc:seeded";
    assertTrue(s.seed(did, "login-1", LOGIN));
    s.write(did, "refreshed-1");
    // A pod restarting with the same file: the table's refreshed session stays.
    assertFalse(s.seed(did, "login-1", LOGIN));
    assertEquals(Optional.of("refreshed-1"), s.read(did));
    // The operator logged in again and replaced the Secret.
    assertTrue(s.seed(did, "login-2", LOGIN.plus(Duration.ofDays(13))));
    assertEquals(Optional.of("login-2"), s.read(did));
    assertFalse(s.seed(did, "login-1", LOGIN), "an older file never comes back");
    assertEquals(Optional.of("login-2"), s.read(did));
  }

  @Test
  void aSecondRefresherWaitsForTheFirstAndReadsWhatItSaved() throws Exception {
    PgOAuthSessions a = new PgOAuthSessions(db);
    PgOAuthSessions b = new PgOAuthSessions(db);
    String did = "did:plc:locked";
    a.seed(did, "tokens-0", LOGIN);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch aHolds = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<String> first =
        pool.submit(
            () ->
                a.exclusively(
                    did,
                    () -> {
                      aHolds.countDown();
                      release.await();
                      a.write(did, "tokens-1");
                      return a.read(did).orElseThrow();
                    }));
    aHolds.await();
    Future<String> second = pool.submit(() -> b.exclusively(did, () -> b.read(did).orElseThrow()));
    awaitBlockedOnARowLock();
    assertFalse(second.isDone());
    release.countDown();
    assertEquals("tokens-1", first.get());
    assertEquals("tokens-1", second.get(), "the second read the session the first saved");
    pool.shutdown();
  }

  /** Until some backend waits for a lock (the second refresher's {@code for update}). */
  private static void awaitBlockedOnARowLock() throws Exception {
    Instant end = Instant.now().plusSeconds(30);
    while (Instant.now().isBefore(end)) {
      try (Connection c = db.getConnection()) {
        List<Integer> waiting =
            Jdbc.query(
                c,
                "select 1 from pg_stat_activity where wait_event_type = 'Lock'"
                    + " and query like '%oauth_session%for update%'",
                r -> 1);
        if (!waiting.isEmpty()) {
          return;
        }
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("the second refresher never waited for the row lock");
  }
}
