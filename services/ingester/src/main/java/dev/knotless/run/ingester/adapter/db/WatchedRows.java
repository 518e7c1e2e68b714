package dev.knotless.run.ingester.adapter.db;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WatchedRepo;
import dev.knotless.runner.state.pg.PgWatchedRepos;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Reads the one list of watched repositories the reconcilers keep in PostgreSQL, through the
 * table's owner in libs/state-pg ({@link PgWatchedRepos}; the reconcilers' Flyway migrations make
 * the table). Read-only: the ingester never writes it.
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
    try {
      return Optional.of(
          new PgWatchedRepos(pool)
              .all().stream()
                  .map(r -> new WatchedRepo(new RepoId(r.ownerDid(), r.repoKey()), r.name()))
                  .toList());
    } catch (SQLException e) {
      if (NO_TABLE.equals(e.getSQLState())) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
