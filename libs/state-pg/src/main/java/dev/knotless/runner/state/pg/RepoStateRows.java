package dev.knotless.runner.state.pg;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.PassedRun;
import dev.knotless.runner.state.QueueCodec;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.WantedRun;
import java.sql.Array;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * Writes one repository's {@link RepoState} as rows of the state tables ({@link RepoStateRead}
 * reads them).
 */
final class RepoStateRows {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> TABLES =
      List.of(
          "repo_ref",
          "repo_pull",
          "repo_rerun",
          "repo_asked",
          "repo_asked_only",
          "repo_passed",
          "repo_dropped",
          "repo_wanted",
          "repo_used",
          "repo_used_private",
          "repo_queue",
          "repo_ejected");

  /**
   * Writes the tables whose part of the state {@code s} changed from {@code before}, as the rows
   * now stand: an unchanged state writes nothing, and a pass that moved one ref touches {@code
   * repo_ref} alone. The caller holds the row lock.
   */
  void replace(Connection c, String repo, RepoState before, RepoState s) throws SQLException {
    if (s.equals(before)) {
      return;
    }
    Set<String> changed = new HashSet<>();
    List<Object> was = parts(before);
    List<Object> now = parts(s);
    for (int i = 0; i < TABLES.size(); i++) {
      if (!now.get(i).equals(was.get(i))) {
        changed.add(TABLES.get(i));
      }
    }
    for (String table : TABLES) {
      if (!changed.contains(table)) {
        continue;
      }
      try (PreparedStatement d = c.prepareStatement("delete from " + table + " where repo = ?")) {
        d.setString(1, repo);
        d.executeUpdate();
      }
    }
    write(c, repo, s, changed);
  }

  /** The state's parts in the order of {@link #TABLES}, each stored in its table. */
  private static List<Object> parts(RepoState s) {
    return List.of(
        s.refs(),
        s.pulls(),
        s.rerun(),
        s.asked(),
        s.askedOnly(),
        s.passed(),
        s.dropped(),
        s.wanted(),
        s.used(),
        s.usedPrivate(),
        s.queues(),
        s.ejected());
  }

  /** Inserts the rows of the {@code changed} tables; their old rows are gone. */
  private static void write(Connection c, String repo, RepoState s, Set<String> changed)
      throws SQLException {
    if (changed.contains("repo_ref")) {
      try (PreparedStatement p =
          c.prepareStatement("insert into repo_ref (repo, ref, generation) values (?, ?, ?)")) {
        for (var e : s.refs().entrySet()) {
          p.setString(1, repo);
          p.setString(2, e.getKey());
          p.setLong(3, e.getValue());
          p.addBatch();
        }
        p.executeBatch();
      }
    }
    if (changed.contains("repo_pull")) {
      try (PreparedStatement p =
          c.prepareStatement(
              "insert into repo_pull (repo, pull, head, base) values (?, ?, ?, ?)")) {
        for (var e : s.pulls().entrySet()) {
          p.setString(1, repo);
          p.setString(2, e.getKey());
          p.setString(3, e.getValue().head());
          p.setString(4, e.getValue().base());
          p.addBatch();
        }
        p.executeBatch();
      }
    }
    if (changed.contains("repo_rerun") && !s.rerun().isEmpty()) {
      try (PreparedStatement p =
          c.prepareStatement("insert into repo_rerun (repo, rkey) values (?, ?)")) {
        p.setString(1, repo);
        p.setString(2, s.rerun());
        p.executeUpdate();
      }
    }
    if (changed.contains("repo_asked")) {
      try (PreparedStatement p =
          c.prepareStatement("insert into repo_asked (repo, pull) values (?, ?)")) {
        for (String pull : s.asked()) {
          p.setString(1, repo);
          p.setString(2, pull);
          p.addBatch();
        }
        p.executeBatch();
      }
    }
    if (changed.contains("repo_asked_only")) {
      try (PreparedStatement p =
          c.prepareStatement(
              "insert into repo_asked_only (repo, pull, workflow) values (?, ?, ?)")) {
        for (var e : s.askedOnly().entrySet()) {
          for (String w : e.getValue()) {
            p.setString(1, repo);
            p.setString(2, e.getKey());
            p.setString(3, w);
            p.addBatch();
          }
        }
        p.executeBatch();
      }
    }
    if (changed.contains("repo_passed")) {
      try (PreparedStatement p =
          c.prepareStatement(
              "insert into repo_passed (repo, seq, tree, workflow, check_uri, subject)"
                  + " values (?, ?, ?, ?, ?, ?)")) {
        int seq = 0;
        for (PassedRun run : s.passed()) {
          p.setString(1, repo);
          p.setInt(2, seq++);
          p.setString(3, run.tree());
          p.setString(4, run.workflow());
          p.setString(5, run.check());
          p.setString(6, run.subject());
          p.addBatch();
        }
        p.executeBatch();
      }
    }
    if (changed.contains("repo_dropped")) {
      try (PreparedStatement p =
          c.prepareStatement(
              "insert into repo_dropped (repo, seq, subject, commit_id, base, workflows)"
                  + " values (?, ?, ?, ?, ?, ?)")) {
        int seq = 0;
        for (DroppedRun run : s.dropped()) {
          Array workflows = c.createArrayOf("text", run.workflows().toArray());
          p.setString(1, repo);
          p.setInt(2, seq++);
          p.setString(3, run.subject());
          p.setString(4, run.commit());
          p.setString(5, run.base());
          p.setArray(6, workflows);
          p.addBatch();
        }
        p.executeBatch();
      }
    }
    if (changed.contains("repo_wanted")) {
      try (PreparedStatement p =
          c.prepareStatement(
              "insert into repo_wanted (repo, ref, seq, workflow, variables)"
                  + " values (?, ?, ?, ?, ?::jsonb)")) {
        for (var e : s.wanted().entrySet()) {
          int seq = 0;
          for (WantedRun run : e.getValue()) {
            p.setString(1, repo);
            p.setString(2, e.getKey());
            p.setInt(3, seq++);
            p.setString(4, run.workflow());
            p.setString(5, json(run.variables()));
            p.addBatch();
          }
        }
        p.executeBatch();
      }
    }
    if (changed.contains("repo_used")) {
      insertDays(c, "repo_used", repo, s.used());
    }
    if (changed.contains("repo_used_private")) {
      insertDays(c, "repo_used_private", repo, s.usedPrivate());
    }
    if (changed.contains("repo_queue")) {
      try (PreparedStatement p =
          c.prepareStatement("insert into repo_queue (repo, ref, state) values (?, ?, ?::jsonb)")) {
        for (var e : s.queues().entrySet()) {
          p.setString(1, repo);
          p.setString(2, e.getKey());
          p.setString(3, QueueCodec.toJson(e.getValue()));
          p.addBatch();
        }
        p.executeBatch();
      }
    }
    if (changed.contains("repo_ejected")) {
      try (PreparedStatement p =
          c.prepareStatement("insert into repo_ejected (repo, pull, head) values (?, ?, ?)")) {
        for (var e : s.ejected().entrySet()) {
          p.setString(1, repo);
          p.setString(2, e.getKey());
          p.setString(3, e.getValue());
          p.addBatch();
        }
        p.executeBatch();
      }
    }
  }

  private static void insertDays(
      Connection c, String table, String repo, SortedMap<LocalDate, Long> days)
      throws SQLException {
    try (PreparedStatement p =
        c.prepareStatement("insert into " + table + " (repo, day, millis) values (?, ?, ?)")) {
      for (var e : days.entrySet()) {
        p.setString(1, repo);
        p.setDate(2, Date.valueOf(e.getKey()));
        p.setLong(3, e.getValue());
        p.addBatch();
      }
      p.executeBatch();
    }
  }

  private static String json(Map<String, String> variables) {
    try {
      return JSON.writeValueAsString(variables);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("variables could not be written as JSON", e);
    }
  }
}
