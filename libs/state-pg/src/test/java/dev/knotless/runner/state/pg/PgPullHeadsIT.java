package dev.knotless.runner.state.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.state.pg.PgPullHeads.Repo;
import dev.knotless.testing.infra.EmbeddedPg;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The pull heads the reconcilers publish for the ingester, on a real PostgreSQL. */
class PgPullHeadsIT {
  private static final Repo APP = new Repo("did:plc:alice", "3kapp2222222a");
  private static final Repo LIB = new Repo("did:plc:alice", "3klib2222222a");
  private static final Repo FORK = new Repo("did:plc:forker", "3kfork222222a");
  private static final Repo OTHER = new Repo("did:plc:other", "3kother22222a");

  private static EmbeddedPg pg;
  private static PGSimpleDataSource db;
  private PgPullHeads heads;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPg.start();
    db = MigratedDb.open(pg);
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @BeforeEach
  void empty() throws Exception {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("truncate pull_head");
    }
    heads = new PgPullHeads(db);
  }

  @Test
  void eachBasesHeadsAreReplacedWholeAndReadBackByBase() throws Exception {
    assertTrue(heads.replace(APP, List.of(FORK, OTHER)));
    assertTrue(heads.replace(LIB, List.of(FORK)));
    assertEquals(Map.of(APP, Set.of(FORK, OTHER), LIB, Set.of(FORK)), heads.all());

    // One of app's pulls closed: only its fork's row goes.
    assertTrue(heads.replace(APP, List.of(OTHER)));
    assertEquals(Map.of(APP, Set.of(OTHER), LIB, Set.of(FORK)), heads.all());

    heads.forget(LIB);
    assertEquals(Map.of(APP, Set.of(OTHER)), heads.all());
    assertTrue(heads.replace(APP, List.of()));
    assertEquals(Map.of(), heads.all());
  }

  @Test
  void aPassThatFoundTheSamePullsWritesNothing() throws Exception {
    heads.replace(APP, List.of(FORK));
    String stamped = stamp();

    assertFalse(heads.replace(APP, List.of(FORK)));
    assertFalse(heads.replace(LIB, List.of()));

    assertEquals(stamped, stamp(), "the row was not rewritten");
  }

  private static String stamp() throws Exception {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("select xmin::text from pull_head")) {
      assertTrue(r.next());
      return r.getString(1);
    }
  }
}
