package dev.knotless.runner.state.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.knotless.testing.infra.EmbeddedPg;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The private repositories' poll cursors, kept for the next holder, on a real PostgreSQL. */
class PgSpaceCursorsIT {
  private static final String ALICE = "did:plc:alice";
  private static final String SITE = "3ksite222222a";
  private static final String NOTES = "3knotes22222a";

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

  @BeforeEach
  void empty() throws Exception {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("truncate space_cursor");
    }
  }

  @Test
  void aCursorWrittenByOneHolderIsReadByTheNextAndMovesOn() throws Exception {
    PgSpaceCursors first = new PgSpaceCursors(db);
    assertNull(first.get(ALICE, SITE, ALICE + "/site"), "never asked: from the start");

    first.put(ALICE, SITE, ALICE + "/site", "7");
    first.put(ALICE, NOTES, ALICE + "/notes", "3");
    // Another replica, another object over the same table: the partition moved.
    PgSpaceCursors next = new PgSpaceCursors(db);
    assertEquals("7", next.get(ALICE, SITE, ALICE + "/site"));
    assertEquals("3", next.get(ALICE, NOTES, ALICE + "/notes"), "each repository its own");

    next.put(ALICE, SITE, ALICE + "/site", "9");
    assertEquals("9", first.get(ALICE, SITE, ALICE + "/site"), "the later answer replaces it");
  }

  @Test
  void aCursorIsGivenOnlyForTheSpaceItWasAnsweredInAndGoesWhenTheRepositoryIsLeft()
      throws Exception {
    PgSpaceCursors cursors = new PgSpaceCursors(db);
    cursors.put(ALICE, SITE, ALICE + "/site", "7");
    assertNull(
        cursors.get(ALICE, SITE, ALICE + "/other"),
        "a cursor of one space means nothing to another");

    cursors.put(ALICE, SITE, ALICE + "/other", "2");
    assertEquals("2", cursors.get(ALICE, SITE, ALICE + "/other"));
    assertNull(cursors.get(ALICE, SITE, ALICE + "/site"), "one row a repository");

    cursors.forget(ALICE, SITE);
    assertNull(cursors.get(ALICE, SITE, ALICE + "/other"), "left: asked from the start again");
  }
}
