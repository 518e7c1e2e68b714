package dev.knotless.runner.state.pg;

import dev.knotless.runner.state.pg.PgRunQueue.IssuedRun;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The check-writer's running checks in PostgreSQL, {@code check_run} and {@code check_log} (schema
 * in {@code db/migration/V5__check_writer.sql}), shared by every replica: the one class that reads
 * or writes either table. The runs the queue issued, which their events must match, are read
 * through {@link PgRunQueue}, which owns them. Plain JDBC; events are kept as the JSON their
 * producer wrote, so this class knows nothing of their format.
 *
 * <p>{@link #withCheck} runs a piece of work on one check inside a transaction that holds an
 * advisory lock on the check's key, so two replicas that both hold a partition for a moment (a
 * rebalance) apply one check's events one at a time, and the later one sees what the earlier
 * committed. What the work changed is committed when it returns; a throw rolls it all back.
 * Thread-safe: each call takes its own connection.
 */
public final class PgCheckLedger {

  /** One check's kept state, valid only inside {@link #withCheck}. */
  public interface Kept {
    /** The run the queue issued under this key, if any. */
    Optional<IssuedRun> issued() throws SQLException;

    /** The filed event (JSON) of the run being written, or empty for a check never filed. */
    Optional<String> filed();

    /** Whether the run's ended record was filed. */
    boolean done();

    /** The events other than output applied so far, as JSON, in order. */
    List<String> events();

    /** The log's length in bytes so far. */
    long logLength();

    /** The log so far. */
    byte[] log() throws SQLException;

    /** The {@code length} bytes of the log from {@code from}, which must lie within it. */
    byte[] logRange(long from, int length) throws SQLException;

    /** Cuts the log back to its first {@code length} bytes (no more than it holds). */
    void truncateLog(long length) throws SQLException;

    /** Starts the check over for the run {@code filedJson} files: its log and events go. */
    void start(String filedJson) throws SQLException;

    /** Appends an event unless the very same one is there; returns whether it was new. */
    boolean addEvent(String json) throws SQLException;

    /**
     * Appends log bytes that begin exactly at the log's end.
     *
     * @throws IllegalArgumentException if {@code offset} is not the log's length
     */
    void appendLog(long offset, byte[] data) throws SQLException;

    /** Marks the check filed as ended and lets its log and events go. */
    void markDone() throws SQLException;
  }

  /** Work on one check; may call the PDS, and throws to roll back what it changed. */
  @FunctionalInterface
  public interface Work<T> {
    T apply(Kept kept) throws IOException, SQLException;
  }

  private final DataSource db;
  private final PgRunQueue queue;

  /**
   * @param db the database, its schema migrated by Flyway
   */
  public PgCheckLedger(DataSource db) {
    this.db = db;
    this.queue = new PgRunQueue(db);
  }

  /**
   * Runs {@code work} on the check {@code key} under its lock, and commits what it changed.
   *
   * @throws IOException what {@code work} threw, after rolling back
   * @throws SQLException the database failed; nothing was committed
   */
  public <T> T withCheck(String key, Work<T> work) throws IOException, SQLException {
    try (Connection c = db.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement s =
            c.prepareStatement("select pg_advisory_xact_lock(hashtext(?))")) {
          s.setString(1, "check:" + key);
          s.executeQuery().close();
        }
        T out = work.apply(new Row(c, key));
        c.commit();
        return out;
      } catch (SQLException | IOException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /**
   * Forgets checks filed as ended, and runs issued, untouched for longer than {@code age}.
   *
   * @return how many rows went
   */
  public int prune(Duration age) throws SQLException {
    int checks;
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "delete from check_run where done and updated_at < now() - ? * interval '1 second'")) {
      s.setLong(1, age.toSeconds());
      checks = s.executeUpdate();
    }
    return checks + queue.forgetIssued(age);
  }

  /**
   * Whether the check-writer heard more of check {@code checkKey}'s run than that it was filed: an
   * event from whoever ran it, or its end. For the run queue's question of whether a run issued
   * lately was really handed on ({@link PgRunQueue#handedOnWithin}).
   */
  static boolean heardOf(Connection c, String checkKey) throws SQLException {
    return !Jdbc.query(
            c,
            "select 1 from check_run where check_key = ? and (done or events <> '')",
            r -> r.getInt(1),
            checkKey)
        .isEmpty();
  }

  /** A check's row, read once under the lock and written through. */
  private static final class Row implements Kept {
    private final Connection c;
    private final String key;
    private String filed;
    private final List<String> events = new ArrayList<>();
    private long logLength;
    private boolean done;

    Row(Connection c, String key) throws SQLException {
      this.c = c;
      this.key = key;
      try (PreparedStatement s =
          c.prepareStatement(
              "select filed, events, log_length, done from check_run where check_key = ?")) {
        s.setString(1, key);
        try (ResultSet r = s.executeQuery()) {
          if (r.next()) {
            filed = r.getString(1);
            for (String line : r.getString(2).split("\n")) {
              if (!line.isEmpty()) {
                events.add(line);
              }
            }
            logLength = r.getLong(3);
            done = r.getBoolean(4);
          }
        }
      }
    }

    @Override
    public Optional<IssuedRun> issued() throws SQLException {
      return PgRunQueue.issued(c, key);
    }

    @Override
    public Optional<String> filed() {
      return Optional.ofNullable(filed);
    }

    @Override
    public boolean done() {
      return done;
    }

    @Override
    public List<String> events() {
      return List.copyOf(events);
    }

    @Override
    public long logLength() {
      return logLength;
    }

    @Override
    public byte[] log() throws SQLException {
      ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(logLength, 1 << 24));
      try (PreparedStatement s =
          c.prepareStatement(
              "select data from check_log where check_key = ? order by log_offset")) {
        s.setString(1, key);
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            out.writeBytes(r.getBytes(1));
          }
        }
      }
      return out.toByteArray();
    }

    @Override
    public byte[] logRange(long from, int length) throws SQLException {
      if (from < 0 || length < 0 || from + length > logLength) {
        throw new IllegalArgumentException(
            "bytes " + from + " to " + (from + length) + " are not within a log of " + logLength);
      }
      byte[] out = new byte[length];
      try (PreparedStatement s =
          c.prepareStatement(
              "select log_offset, data from check_log where check_key = ? and log_offset < ?"
                  + " and log_offset + octet_length(data) > ? order by log_offset")) {
        s.setString(1, key);
        s.setLong(2, from + length);
        s.setLong(3, from);
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            long at = r.getLong(1);
            byte[] data = r.getBytes(2);
            long start = Math.max(at, from);
            long end = Math.min(at + data.length, from + length);
            System.arraycopy(
                data, (int) (start - at), out, (int) (start - from), (int) (end - start));
          }
        }
      }
      return out;
    }

    @Override
    public void truncateLog(long length) throws SQLException {
      if (length < 0 || length > logLength) {
        throw new IllegalArgumentException(
            "a log of " + logLength + " bytes cannot be cut back to " + length);
      }
      try (PreparedStatement s =
          c.prepareStatement("delete from check_log where check_key = ? and log_offset >= ?")) {
        s.setString(1, key);
        s.setLong(2, length);
        s.executeUpdate();
      }
      try (PreparedStatement s =
          c.prepareStatement(
              "update check_log set data = substring(data from 1 for (? - log_offset)::int)"
                  + " where check_key = ? and log_offset < ? and log_offset + octet_length(data) > ?")) {
        s.setLong(1, length);
        s.setString(2, key);
        s.setLong(3, length);
        s.setLong(4, length);
        s.executeUpdate();
      }
      setLogLength(length);
    }

    @Override
    public void start(String filedJson) throws SQLException {
      update("delete from check_log where check_key = ?", key);
      try (PreparedStatement s =
          c.prepareStatement(
              "insert into check_run (check_key, filed) values (?, ?) on conflict (check_key) do"
                  + " update set filed = excluded.filed, events = '', log_length = 0,"
                  + " done = false, updated_at = now()")) {
        s.setString(1, key);
        s.setString(2, filedJson);
        s.executeUpdate();
      }
      filed = filedJson;
      events.clear();
      logLength = 0;
      done = false;
    }

    @Override
    public boolean addEvent(String json) throws SQLException {
      if (json.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("an event's JSON holds a line end");
      }
      if (events.contains(json)) {
        return false;
      }
      try (PreparedStatement s =
          c.prepareStatement(
              "update check_run set events = events || ? || chr(10), updated_at = now()"
                  + " where check_key = ?")) {
        s.setString(1, json);
        s.setString(2, key);
        s.executeUpdate();
      }
      events.add(json);
      return true;
    }

    @Override
    public void appendLog(long offset, byte[] data) throws SQLException {
      if (offset != logLength) {
        throw new IllegalArgumentException(
            "log bytes at " + offset + " do not begin at the log's end, " + logLength);
      }
      try (PreparedStatement s =
          c.prepareStatement(
              "insert into check_log (check_key, log_offset, data) values (?, ?, ?)")) {
        s.setString(1, key);
        s.setLong(2, offset);
        s.setBytes(3, data);
        s.executeUpdate();
      }
      setLogLength(offset + data.length);
    }

    /** The kept log is {@code length} bytes long now: the row says so, and so does this. */
    private void setLogLength(long length) throws SQLException {
      try (PreparedStatement s =
          c.prepareStatement(
              "update check_run set log_length = ?, updated_at = now() where check_key = ?")) {
        s.setLong(1, length);
        s.setString(2, key);
        s.executeUpdate();
      }
      logLength = length;
    }

    @Override
    public void markDone() throws SQLException {
      update("delete from check_log where check_key = ?", key);
      update(
          "update check_run set done = true, events = '', log_length = 0, updated_at = now()"
              + " where check_key = ?",
          key);
      done = true;
    }

    private void update(String sql, String arg) throws SQLException {
      try (PreparedStatement s = c.prepareStatement(sql)) {
        s.setString(1, arg);
        s.executeUpdate();
      }
    }
  }
}
