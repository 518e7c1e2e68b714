package dev.knotless.run.reconciler.adapter.db;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.state.pg.PgPullHeads;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Publishes, for the ingester, the heads of each watched repository's open pulls that are other
 * repositories, as the pulls step found them, through the table's owner in libs/state-pg ({@link
 * PgPullHeads}). Called from pass threads.
 */
@ApplicationScoped
public class PullHeadsTable {
  private static final Logger LOG = Logger.getLogger(PullHeadsTable.class);

  private final PgPullHeads table;

  public PullHeadsTable(PgPullHeads table) {
    this.table = table;
  }

  /**
   * Makes {@code heads} the followed heads of {@code base}. A write that fails is logged and the
   * pass goes on: until a later pass writes them, a push to such a head waits for the sweep.
   */
  public void publish(RepoId base, Set<RepoId> heads) {
    try {
      if (table.replace(repo(base), heads.stream().map(PullHeadsTable::repo).toList())) {
        LOG.infof(
            "%s: the ingester now follows %d pull heads in other repositories", base, heads.size());
      }
    } catch (SQLException e) {
      LOG.warnf(
          "%s: the heads of its pulls could not be published (a push to one waits for the sweep"
              + " until a later pass publishes them): %s",
          base, e.getMessage());
    }
  }

  /** Follows no head of {@code base}, which is no longer watched. */
  public void forget(RepoId base) {
    publish(base, Set.of());
  }

  private static PgPullHeads.Repo repo(RepoId id) {
    return new PgPullHeads.Repo(id.ownerDid(), id.repoKey());
  }
}
