package dev.knotless.runner.state.pg;

import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.RunnerState;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.StateStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The runner's state in PostgreSQL (schema in db/migration/V1__state.sql, migrated by Flyway), over
 * plain JDBC. {@link PgStateStores#open} makes one from a URL; a service with its own pool passes
 * that pool to the constructor.
 *
 * <p>An update runs in one transaction that first locks the repository's row, so updates of one
 * repository are serialized across every process sharing the database, and a change that throws
 * rolls the transaction back, leaving the state as it was. Thread-safe: each call takes its own
 * connection.
 */
public final class PgStateStore implements StateStore {
  /** The advisory lock that serializes updates of the runner's own fields. */
  private static final long RUNNER_LOCK = 0x6b6e6f746c657373L;

  private final DataSource db;
  private final RepoStateRows rows = new RepoStateRows();

  /**
   * @param db the database, its schema migrated by Flyway; each call takes a connection from it and
   *     closes it before returning
   */
  public PgStateStore(DataSource db) {
    this.db = db;
  }

  @Override
  public Optional<RepoState> load(String repo) {
    try (Connection c = db.getConnection()) {
      return Optional.ofNullable(RepoStateRead.read(c, repo, false));
    } catch (SQLException e) {
      throw failure("load the state of " + repo, e);
    }
  }

  @Override
  public RepoState update(String repo, UnaryOperator<RepoState> change) {
    try (Connection c = db.getConnection()) {
      c.setAutoCommit(false);
      try {
        // The row made if missing and locked, and the state read, in one round trip.
        RepoState before = RepoStateRead.read(c, repo, true);
        RepoState next = change.apply(before);
        rows.replace(c, repo, before, next);
        c.commit();
        return next;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw failure("store the state of " + repo, e);
    }
  }

  @Override
  public void remove(String repo) {
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement("delete from repo where repo = ?")) {
      s.setString(1, repo);
      s.executeUpdate();
    } catch (SQLException e) {
      throw failure("forget " + repo, e);
    }
  }

  @Override
  public Set<String> repositories() {
    Set<String> out = new LinkedHashSet<>();
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement("select repo from repo order by repo");
        ResultSet r = s.executeQuery()) {
      while (r.next()) {
        out.add(r.getString(1));
      }
      return Set.copyOf(out);
    } catch (SQLException e) {
      throw failure("list the repositories with state", e);
    }
  }

  @Override
  public RunnerState runner() {
    try (Connection c = db.getConnection()) {
      return readRunner(c);
    } catch (SQLException e) {
      throw failure("load the runner's own state", e);
    }
  }

  @Override
  public RunnerState updateRunner(UnaryOperator<RunnerState> change) {
    try (Connection c = db.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement s = c.prepareStatement("select pg_advisory_xact_lock(?)")) {
          s.setLong(1, RUNNER_LOCK);
          s.executeQuery().close();
        }
        RunnerState next = change.apply(readRunner(c));
        writeRunner(c, next);
        c.commit();
        return next;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw failure("store the runner's own state", e);
    }
  }

  private static RunnerState readRunner(Connection c) throws SQLException {
    List<String> discovered = new ArrayList<>();
    try (PreparedStatement s =
            c.prepareStatement("select repo from runner_discovered order by seq");
        ResultSet r = s.executeQuery()) {
      while (r.next()) {
        discovered.add(r.getString(1));
      }
    }
    String invited = "";
    try (PreparedStatement s = c.prepareStatement("select cursor_text from runner_invited");
        ResultSet r = s.executeQuery()) {
      if (r.next()) {
        invited = r.getString(1);
      }
    }
    return new RunnerState(discovered, invited);
  }

  private static void writeRunner(Connection c, RunnerState state) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("delete from runner_discovered")) {
      s.executeUpdate();
    }
    try (PreparedStatement s =
        c.prepareStatement("insert into runner_discovered (seq, repo) values (?, ?)")) {
      int seq = 0;
      for (String repo : state.discovered()) {
        s.setInt(1, seq++);
        s.setString(2, repo);
        s.addBatch();
      }
      s.executeBatch();
    }
    try (PreparedStatement s =
        c.prepareStatement(
            "insert into runner_invited (id, cursor_text) values (1, ?)"
                + " on conflict (id) do update set cursor_text = excluded.cursor_text")) {
      s.setString(1, state.invited());
      s.executeUpdate();
    }
  }

  private static StateStoreException failure(String what, SQLException e) {
    return new StateStoreException(
        "could not "
            + what
            + " in PostgreSQL: "
            + e.getMessage()
            + " (SQL state "
            + e.getSQLState()
            + ")",
        e);
  }
}
