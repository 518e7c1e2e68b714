package dev.knotless.runner.state.pg;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The head repositories of the watched repositories' open pulls, {@code pull_head} (migration V10):
 * the one class that reads or writes it. A reconciler's pulls step writes, at every pass, the heads
 * it found that are other repositories than the base (forks); the ingester reads them all and
 * follows them, so a push to a fork rings its base's door. Plain JDBC; each call takes its own
 * connection and closes it before returning, so the class is thread-safe.
 */
public final class PgPullHeads {

  /**
   * A repository, by its owner's DID and its repository record's key.
   *
   * @param ownerDid the owner's DID
   * @param repoKey the repository's key
   */
  public record Repo(String ownerDid, String repoKey) {}

  private final DataSource db;

  /**
   * @param db the database, its schema migrated by Flyway
   */
  public PgPullHeads(DataSource db) {
    this.db = db;
  }

  /**
   * Makes {@code heads} the followed heads of {@code base}, in one transaction; empty follows none.
   * Rows are written only when they differ, so a pass that found the same pulls writes nothing.
   *
   * @return whether the rows changed
   */
  public boolean replace(Repo base, Collection<Repo> heads) throws SQLException {
    Set<Repo> wanted = new LinkedHashSet<>(heads);
    try (Connection c = db.getConnection()) {
      c.setAutoCommit(false);
      try {
        Set<Repo> now =
            new HashSet<>(
                Jdbc.query(
                    c,
                    "select head_owner_did, head_repo_key from pull_head"
                        + " where base_owner_did = ? and base_repo_key = ?",
                    r -> new Repo(r.getString(1), r.getString(2)),
                    base.ownerDid(),
                    base.repoKey()));
        if (now.equals(wanted)) {
          c.commit();
          return false;
        }
        Jdbc.update(
            c,
            "delete from pull_head where base_owner_did = ? and base_repo_key = ?",
            base.ownerDid(),
            base.repoKey());
        for (Repo h : wanted) {
          // Two passes of one base racing (a rebalance) both write what they found; either's
          // rows are right for a moment, and the next pass writes them again.
          Jdbc.update(
              c,
              "insert into pull_head (base_owner_did, base_repo_key, head_owner_did, head_repo_key)"
                  + " values (?, ?, ?, ?) on conflict do nothing",
              base.ownerDid(),
              base.repoKey(),
              h.ownerDid(),
              h.repoKey());
        }
        c.commit();
        return true;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** Follows no head of {@code base}: it is no longer watched. */
  public void forget(Repo base) throws SQLException {
    replace(base, List.of());
  }

  /**
   * Every followed head, by base, in a stable order.
   *
   * @throws SQLException with state {@code 42P01} when no migration has made the table yet
   */
  public Map<Repo, Set<Repo>> all() throws SQLException {
    Map<Repo, Set<Repo>> out = new LinkedHashMap<>();
    try (Connection c = db.getConnection()) {
      for (List<Repo> row :
          Jdbc.query(
              c,
              "select base_owner_did, base_repo_key, head_owner_did, head_repo_key from pull_head"
                  + " order by base_owner_did, base_repo_key, head_owner_did, head_repo_key",
              r ->
                  List.of(
                      new Repo(r.getString(1), r.getString(2)),
                      new Repo(r.getString(3), r.getString(4))))) {
        out.computeIfAbsent(row.get(0), b -> new LinkedHashSet<>()).add(row.get(1));
      }
    }
    return out;
  }
}
