package dev.knotless.run.scheduler.adapter.db;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The scheduler's side of the run queue the reconcilers fill: the rows that carry a run order.
 * Plain JDBC, as the scheduler's loop blocks anyway on the pods it runs. The schema is the
 * reconcilers' (Flyway runs there).
 */
@ApplicationScoped
public class SchedulerQueue {

  /** A queued run: its check key, its order as JSON, who holds it and whether it started. */
  public record Row(String checkKey, String order, String worker, String state) {}

  private final AgroalDataSource db;

  public SchedulerQueue(AgroalDataSource db) {
    this.db = db;
  }

  /** The ordered runs {@code me} does not hold, in the order they were filed. */
  public List<Row> notHeldBy(String me, int limit) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select check_key, run_order, worker, state from run_queue"
                    + " where run_order is not null and worker is distinct from ?"
                    + " order by created_seq limit ?")) {
      s.setString(1, me);
      s.setInt(2, limit);
      List<Row> rows = new ArrayList<>();
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          rows.add(new Row(r.getString(1), r.getString(2), r.getString(3), r.getString(4)));
        }
      }
      return rows;
    }
  }

  /**
   * Takes a run for {@code me} if it is still held by {@code was} (null for none): a row another
   * leader took meanwhile stays theirs.
   */
  public boolean take(String checkKey, String me, String was) throws SQLException {
    return update(
            "update run_queue set worker = ?, heartbeat_at = now() where check_key = ?"
                + " and worker is not distinct from ?",
            me,
            checkKey,
            was)
        == 1;
  }

  /** Stamps every run {@code me} holds. */
  public int heartbeat(String me) throws SQLException {
    return update("update run_queue set heartbeat_at = now() where worker = ?", me);
  }

  /** Marks a run started. */
  public void started(String checkKey) throws SQLException {
    update(
        "update run_queue set state = 'RUNNING', started_at = now() where check_key = ?", checkKey);
  }

  /** Takes an ended run off the queue, if {@code me} still holds it. */
  public void remove(String checkKey, String me) throws SQLException {
    update("delete from run_queue where check_key = ? and worker = ?", checkKey, me);
  }

  private int update(String sql, String... args) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        s.setString(i + 1, args[i]);
      }
      return s.executeUpdate();
    }
  }
}
