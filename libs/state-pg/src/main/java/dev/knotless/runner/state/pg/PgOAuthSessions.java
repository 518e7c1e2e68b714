package dev.knotless.runner.state.pg;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The runner account's OAuth sessions, {@code oauth_session} (migration V11): the one class that
 * reads or writes it. Every replica of the services resumes the session saved here, and refreshes
 * it only inside {@link #exclusively}, which holds the account's row locked ({@code select ... for
 * update}) in one transaction: a second replica waits, then reads the session the first saved
 * instead of spending the refresh token the first already spent. The session is opaque JSON text
 * here (secrets included; nothing of it is logged). Thread-safe: each call takes its own
 * connection, except the calls a thread makes inside {@link #exclusively}, which use the locked
 * one.
 */
public final class PgOAuthSessions {

  /** Work done while the account's row is locked. */
  @FunctionalInterface
  public interface Work<T, E extends Exception> {
    T run() throws E;
  }

  private final DataSource db;
  private final ThreadLocal<Connection> locked = new ThreadLocal<>();

  /**
   * @param db the database, its schema migrated by Flyway
   */
  public PgOAuthSessions(DataSource db) {
    this.db = db;
  }

  /**
   * Saves {@code session}, taken from the mounted file, when no session of {@code did} is saved, or
   * when the one saved was seeded from a file issued before {@code issuedAt} (a new login).
   *
   * @return whether it was saved
   */
  public boolean seed(String did, String session, Instant issuedAt) throws SQLException {
    try (Connection c = db.getConnection()) {
      return Jdbc.update(
              c,
              "insert into oauth_session (did, session, seed_issued_at) values (?, ?, ?)"
                  + " on conflict (did) do update set session = excluded.session,"
                  + " seed_issued_at = excluded.seed_issued_at, updated_at = now()"
                  + " where oauth_session.seed_issued_at < excluded.seed_issued_at",
              did,
              session,
              Timestamp.from(issuedAt))
          == 1;
    }
  }

  /**
   * The session saved for {@code did}, read on the locked connection inside {@link #exclusively}.
   */
  public Optional<String> read(String did) throws SQLException {
    Connection held = locked.get();
    if (held != null) {
      return read(held, did);
    }
    try (Connection c = db.getConnection()) {
      return read(c, did);
    }
  }

  /**
   * Replaces the saved session of {@code did} (a refresh's); inside {@link #exclusively} on the
   * locked connection, committed when the work ends.
   */
  public void write(String did, String session) throws SQLException {
    Connection held = locked.get();
    if (held != null) {
      write(held, did, session);
      return;
    }
    try (Connection c = db.getConnection()) {
      write(c, did, session);
    }
  }

  /**
   * Runs {@code work} holding {@code did}'s row locked, in one transaction committed when it ends
   * (rolled back when it throws). Reads and writes this thread makes meanwhile use that
   * transaction.
   */
  public <T, E extends Exception> T exclusively(String did, Work<T, E> work)
      throws E, SQLException {
    if (locked.get() != null) {
      return work.run();
    }
    try (Connection c = db.getConnection()) {
      c.setAutoCommit(false);
      locked.set(c);
      try {
        Jdbc.query(c, "select did from oauth_session where did = ? for update", r -> 1, did);
        T out = work.run();
        c.commit();
        return out;
      } catch (Exception e) {
        c.rollback();
        throw e;
      } finally {
        locked.remove();
        c.setAutoCommit(true);
      }
    }
  }

  private static Optional<String> read(Connection c, String did) throws SQLException {
    List<String> rows =
        Jdbc.query(c, "select session from oauth_session where did = ?", r -> r.getString(1), did);
    return rows.stream().findFirst();
  }

  private static void write(Connection c, String did, String session) throws SQLException {
    Jdbc.update(
        c,
        "insert into oauth_session (did, session, seed_issued_at) values (?, ?, 'epoch')"
            + " on conflict (did) do update set session = excluded.session, updated_at = now()",
        did,
        session);
  }
}
