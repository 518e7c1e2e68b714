package dev.knotless.runner.state.pg;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * Where each private repository's space was last asked from, {@code space_cursor} (migration V13):
 * the one class that reads or writes it. The reconciler holding a repository's doorbell partition
 * reads the cursor before it asks the space's {@code listRepos} and writes the one answered, so the
 * replica given the partition after it goes on from there. A cursor is kept with the space it
 * belongs to and given back only for that space. Plain JDBC; each call takes its own connection and
 * closes it before returning, so the class is thread-safe.
 */
public final class PgSpaceCursors {
  private final DataSource db;

  /**
   * @param db the database, its schema migrated by Flyway
   */
  public PgSpaceCursors(DataSource db) {
    this.db = db;
  }

  /**
   * The cursor kept for the repository {@code ownerDid}/{@code repoKey} in {@code space}, or null
   * when none is (never asked, left, or asked in another space).
   */
  public String get(String ownerDid, String repoKey, String space) throws SQLException {
    try (Connection c = db.getConnection()) {
      List<String> found =
          Jdbc.query(
              c,
              "select cursor_text from space_cursor"
                  + " where owner_did = ? and repo_key = ? and space = ?",
              r -> r.getString(1),
              ownerDid,
              repoKey,
              space);
      return found.isEmpty() ? null : found.get(0);
    }
  }

  /** Keeps {@code cursor} as where the repository's space {@code space} was last asked to. */
  public void put(String ownerDid, String repoKey, String space, String cursor)
      throws SQLException {
    try (Connection c = db.getConnection()) {
      // Two replicas asking at once (a partition moving) both write what they were answered;
      // either cursor is a place the space has answered up to, and the next poll moves on.
      Jdbc.update(
          c,
          "insert into space_cursor (owner_did, repo_key, space, cursor_text) values (?, ?, ?, ?)"
              + " on conflict (owner_did, repo_key) do update set space = excluded.space,"
              + " cursor_text = excluded.cursor_text, updated_at = now()",
          ownerDid,
          repoKey,
          space,
          cursor);
    }
  }

  /** Drops the repository's cursor: it is no longer watched. */
  public void forget(String ownerDid, String repoKey) throws SQLException {
    try (Connection c = db.getConnection()) {
      Jdbc.update(
          c, "delete from space_cursor where owner_did = ? and repo_key = ?", ownerDid, repoKey);
    }
  }
}
