package dev.knotless.runner.pass;

import dev.knotless.atproto.space.SpaceId;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.state.pg.PgSpaceCursors;
import java.io.IOException;
import java.sql.SQLException;

/**
 * Where each private repository's space was last asked from ({@code listRepos}'s cursor), kept
 * outside the process by a runner whose repositories move between processes: the reconcilers of the
 * distributed shape keep it in PostgreSQL, so the one given a repository's partition goes on from
 * where the last holder's answered poll ended, rather than from the start. Implementations are
 * thread-safe.
 */
public interface SpaceCursors {
  /** The cursor kept for {@code repo} read in {@code space}, or null for none. */
  String get(RepoId repo, SpaceId space) throws IOException;

  /** Keeps {@code cursor} as where {@code repo}'s space {@code space} was last answered to. */
  void put(RepoId repo, SpaceId space, String cursor) throws IOException;

  /** Drops {@code repo}'s cursor: it is no longer watched. */
  void forget(RepoId repo) throws IOException;

  /** The cursors in PostgreSQL's {@code space_cursor}, through its owner {@code table}. */
  static SpaceCursors in(PgSpaceCursors table) {
    return new SpaceCursors() {
      @Override
      public String get(RepoId repo, SpaceId space) throws IOException {
        try {
          return table.get(repo.ownerDid(), repo.repoKey(), space.toString());
        } catch (SQLException e) {
          throw new IOException(e.getMessage(), e);
        }
      }

      @Override
      public void put(RepoId repo, SpaceId space, String cursor) throws IOException {
        try {
          table.put(repo.ownerDid(), repo.repoKey(), space.toString(), cursor);
        } catch (SQLException e) {
          throw new IOException(e.getMessage(), e);
        }
      }

      @Override
      public void forget(RepoId repo) throws IOException {
        try {
          table.forget(repo.ownerDid(), repo.repoKey());
        } catch (SQLException e) {
          throw new IOException(e.getMessage(), e);
        }
      }
    };
  }
}
