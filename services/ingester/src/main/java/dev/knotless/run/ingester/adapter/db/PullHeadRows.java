package dev.knotless.run.ingester.adapter.db;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.state.pg.PgPullHeads;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Reads the heads of the watched repositories' open pulls that the reconcilers publish in
 * PostgreSQL, through the table's owner in libs/state-pg ({@link PgPullHeads}). Read-only.
 */
@ApplicationScoped
public class PullHeadRows {
  private static final String NO_TABLE = "42P01";

  private final Instance<AgroalDataSource> db;

  public PullHeadRows(Instance<AgroalDataSource> db) {
    this.db = db;
  }

  /**
   * Every published head, by its pull's base; empty when no reconciler has made the table yet.
   *
   * @throws SQLException when PostgreSQL cannot be read
   */
  public Map<RepoId, Set<RepoId>> all() throws SQLException {
    Map<PgPullHeads.Repo, Set<PgPullHeads.Repo>> rows;
    try {
      rows = new PgPullHeads(db.get()).all();
    } catch (SQLException e) {
      if (NO_TABLE.equals(e.getSQLState())) {
        return Map.of();
      }
      throw e;
    }
    Map<RepoId, Set<RepoId>> out = new LinkedHashMap<>();
    rows.forEach(
        (base, heads) -> {
          Set<RepoId> ids = new LinkedHashSet<>();
          heads.forEach(h -> ids.add(id(h)));
          out.put(id(base), ids);
        });
    return out;
  }

  private static RepoId id(PgPullHeads.Repo r) {
    return new RepoId(r.ownerDid(), r.repoKey());
  }
}
