package dev.knotless.run.reconciler.adapter.db;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.state.pg.PgWatchedRepos;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The one list of watched repositories the ingester and every reconciler read, in this service's
 * terms ({@link RepoId}): its table's owner is libs/state-pg's {@link PgWatchedRepos}. Called from
 * pass and discovery threads that block anyway.
 */
@ApplicationScoped
public class WatchedTable {

  /** A watched repository: who owns it, its key, its name and how it came to be watched. */
  public record Row(RepoId id, String name, String how) {
    public String label() {
      return id.ownerDid() + "/" + name;
    }
  }

  public static final String LISTED = PgWatchedRepos.LISTED;
  public static final String DISCOVERED = PgWatchedRepos.DISCOVERED;

  private final PgWatchedRepos table;

  public WatchedTable(PgWatchedRepos table) {
    this.table = table;
  }

  /** Every watched repository. */
  public List<Row> all() throws SQLException {
    return table.all().stream().map(WatchedTable::row).toList();
  }

  /** The row of {@code id}, if it is watched. */
  public Optional<Row> find(RepoId id) throws SQLException {
    return table.find(id.ownerDid(), id.repoKey()).map(WatchedTable::row);
  }

  /**
   * Watches {@code id} under {@code name}. A listed repository stays listed when discovery finds it
   * too, so the operator's list is what keeps it.
   */
  public void put(RepoId id, String name, String how) throws SQLException {
    table.put(id.ownerDid(), id.repoKey(), name, how);
  }

  /** Watches each of {@code listed} as {@link #LISTED}, under its name, in one batch. */
  public void putListed(Collection<Row> listed) throws SQLException {
    table.putAll(
        listed.stream()
            .map(r -> new PgWatchedRepos.Row(r.id().ownerDid(), r.id().repoKey(), r.name(), LISTED))
            .toList());
  }

  /** Stops watching {@code id}. */
  public void remove(RepoId id) throws SQLException {
    table.remove(id.ownerDid(), id.repoKey());
  }

  /**
   * Makes the listed rows exactly {@code listed}: one the operator took off the list is no longer
   * watched, unless discovery found it (it is then kept as discovered only if a sweep finds it).
   *
   * @return how many listed rows went
   */
  public int keepListed(Collection<RepoId> listed) throws SQLException {
    return table.keepListed(listed.stream().map(RepoId::toString).toList());
  }

  private static Row row(PgWatchedRepos.Row r) {
    return new Row(new RepoId(r.ownerDid(), r.repoKey()), r.name(), r.how());
  }
}
