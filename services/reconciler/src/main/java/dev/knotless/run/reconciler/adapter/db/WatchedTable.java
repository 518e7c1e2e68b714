package dev.knotless.run.reconciler.adapter.db;

import dev.knotless.runner.doorbell.RepoId;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The {@code watched_repo} table: the one list of watched repositories the ingester and every
 * reconciler read. Plain JDBC, called from pass and discovery threads that block anyway.
 */
@ApplicationScoped
public class WatchedTable {

  /** A watched repository: who owns it, its key, its name and how it came to be watched. */
  public record Row(RepoId id, String name, String how) {
    public String label() {
      return id.ownerDid() + "/" + name;
    }
  }

  public static final String LISTED = "listed";
  public static final String DISCOVERED = "discovered";

  private final AgroalDataSource db;

  public WatchedTable(AgroalDataSource db) {
    this.db = db;
  }

  /** Every watched repository. */
  public List<Row> all() throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement("select owner_did, repo_key, name, how from watched_repo");
        ResultSet r = s.executeQuery()) {
      List<Row> rows = new ArrayList<>();
      while (r.next()) {
        rows.add(row(r));
      }
      return rows;
    }
  }

  /** The row of {@code id}, if it is watched. */
  public Optional<Row> find(RepoId id) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select owner_did, repo_key, name, how from watched_repo"
                    + " where owner_did = ? and repo_key = ?")) {
      s.setString(1, id.ownerDid());
      s.setString(2, id.repoKey());
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? Optional.of(row(r)) : Optional.empty();
      }
    }
  }

  /**
   * Watches {@code id} under {@code name}. A listed repository stays listed when discovery finds it
   * too, so the operator's list is what keeps it.
   */
  public void put(RepoId id, String name, String how) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "insert into watched_repo (owner_did, repo_key, name, how) values (?, ?, ?, ?)"
                    + " on conflict (owner_did, repo_key) do update set name = excluded.name,"
                    + " how = case when watched_repo.how = 'listed' then 'listed'"
                    + " else excluded.how end, updated_at = now()")) {
      s.setString(1, id.ownerDid());
      s.setString(2, id.repoKey());
      s.setString(3, name);
      s.setString(4, how);
      s.executeUpdate();
    }
  }

  /** Stops watching {@code id}. */
  public void remove(RepoId id) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement("delete from watched_repo where owner_did = ? and repo_key = ?")) {
      s.setString(1, id.ownerDid());
      s.setString(2, id.repoKey());
      s.executeUpdate();
    }
  }

  /**
   * Makes the listed rows exactly {@code listed}: one the operator took off the list is no longer
   * watched, unless discovery found it (it is then kept as discovered only if a sweep finds it).
   *
   * @return how many listed rows went
   */
  public int keepListed(Collection<RepoId> listed) throws SQLException {
    List<String> keys = listed.stream().map(RepoId::toString).toList();
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "delete from watched_repo where how = 'listed'"
                    + " and not (owner_did || '/' || repo_key = any (?))")) {
      s.setArray(1, c.createArrayOf("text", keys.toArray()));
      return s.executeUpdate();
    }
  }

  private static Row row(ResultSet r) throws SQLException {
    return new Row(new RepoId(r.getString(1), r.getString(2)), r.getString(3), r.getString(4));
  }
}
