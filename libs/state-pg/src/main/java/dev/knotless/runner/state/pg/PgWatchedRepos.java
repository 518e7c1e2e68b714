package dev.knotless.runner.state.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The one list of watched repositories, {@code watched_repo} (migration V6): the one class that
 * reads or writes it. The reconcilers write it (the operator's list, resolved, and what discovery
 * finds); the ingester reads it to know whose doors to ring. A repository is named by its owner's
 * DID and its repository key. Plain JDBC; each call takes its own connection and closes it before
 * returning, so the class is thread-safe.
 */
public final class PgWatchedRepos {
  /** How a repository came to be watched: on the operator's list. */
  public static final String LISTED = "listed";

  /** How a repository came to be watched: found naming the runner. */
  public static final String DISCOVERED = "discovered";

  /**
   * A watched repository.
   *
   * @param ownerDid its owner's DID
   * @param repoKey its repository record's key
   * @param name its name, as its record has it now
   * @param how {@link #LISTED} or {@link #DISCOVERED}
   */
  public record Row(String ownerDid, String repoKey, String name, String how) {}

  private static final String COLUMNS = "owner_did, repo_key, name, how";

  private final DataSource db;

  /**
   * @param db the database, its schema migrated by Flyway
   */
  public PgWatchedRepos(DataSource db) {
    this.db = db;
  }

  /**
   * Every watched repository, by owner and key.
   *
   * @throws SQLException with state {@code 42P01} when no migration has made the table yet
   */
  public List<Row> all() throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select " + COLUMNS + " from watched_repo order by owner_did, repo_key");
        ResultSet r = s.executeQuery()) {
      List<Row> rows = new ArrayList<>();
      while (r.next()) {
        rows.add(row(r));
      }
      return rows;
    }
  }

  /** The row of a repository, if it is watched. */
  public Optional<Row> find(String ownerDid, String repoKey) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select " + COLUMNS + " from watched_repo where owner_did = ? and repo_key = ?")) {
      s.setString(1, ownerDid);
      s.setString(2, repoKey);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? Optional.of(row(r)) : Optional.empty();
      }
    }
  }

  /**
   * Watches a repository under {@code name}. A listed repository stays listed when discovery finds
   * it too, so the operator's list is what keeps it.
   */
  public void put(String ownerDid, String repoKey, String name, String how) throws SQLException {
    putAll(List.of(new Row(ownerDid, repoKey, name, how)));
  }

  /**
   * Watches every row's repository, as {@link #put} does, in one batch: a start that reads
   * thousands of listed repositories writes them in one round trip, not thousands.
   */
  public void putAll(List<Row> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "insert into watched_repo (owner_did, repo_key, name, how) values (?, ?, ?, ?)"
                    + " on conflict (owner_did, repo_key) do update set name = excluded.name,"
                    + " how = case when watched_repo.how = 'listed' then 'listed'"
                    + " else excluded.how end, updated_at = now()")) {
      for (Row r : rows) {
        s.setString(1, r.ownerDid());
        s.setString(2, r.repoKey());
        s.setString(3, r.name());
        s.setString(4, r.how());
        s.addBatch();
      }
      s.executeBatch();
    }
  }

  /** Stops watching a repository. */
  public void remove(String ownerDid, String repoKey) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement("delete from watched_repo where owner_did = ? and repo_key = ?")) {
      s.setString(1, ownerDid);
      s.setString(2, repoKey);
      s.executeUpdate();
    }
  }

  /**
   * Makes the listed rows exactly {@code listed}, each {@code <owner did>/<repo key>}: one the
   * operator took off the list is no longer watched.
   *
   * @return how many listed rows went
   */
  public int keepListed(Collection<String> listed) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "delete from watched_repo where how = 'listed'"
                    + " and not (owner_did || '/' || repo_key = any (?))")) {
      s.setArray(1, c.createArrayOf("text", listed.toArray()));
      return s.executeUpdate();
    }
  }

  private static Row row(ResultSet r) throws SQLException {
    return new Row(r.getString(1), r.getString(2), r.getString(3), r.getString(4));
  }
}
