package dev.knotless.run.ingester.adapter.db;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WatchedRepo;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the one list of watched repositories the reconcilers keep in PostgreSQL ({@code
 * watched_repo}; their Flyway migrations make it). Read-only: the ingester never writes it.
 */
@ApplicationScoped
public class WatchedRows {
  private static final String NO_TABLE = "42P01";

  private final Instance<AgroalDataSource> db;

  public WatchedRows(Instance<AgroalDataSource> db) {
    this.db = db;
  }

  /**
   * Every watched repository, or empty when no reconciler has made the table yet.
   *
   * @throws SQLException when PostgreSQL cannot be read
   */
  public Optional<List<WatchedRepo>> all() throws SQLException {
    AgroalDataSource pool;
    try {
      pool = db.get();
    } catch (RuntimeException e) {
      throw new SQLException(
          "no PostgreSQL to read them from (set quarkus.datasource.jdbc.url, or fix the list with"
              + " knotless.ingester.repos): "
              + e.getMessage(),
          e);
    }
    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select owner_did, repo_key, name from watched_repo order by owner_did, repo_key");
        ResultSet r = s.executeQuery()) {
      List<WatchedRepo> rows = new ArrayList<>();
      while (r.next()) {
        rows.add(new WatchedRepo(new RepoId(r.getString(1), r.getString(2)), r.getString(3)));
      }
      return Optional.of(rows);
    } catch (SQLException e) {
      if (NO_TABLE.equals(e.getSQLState())) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
