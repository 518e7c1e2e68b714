package dev.knotless.runner.state.pg;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.runner.queue.QueueState;
import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.PassedRun;
import dev.knotless.runner.state.PullMark;
import dev.knotless.runner.state.QueueCodec;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.WantedRun;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reads one repository's {@link RepoState} in one statement: its own row in {@code repo}, and
 * beside it every state table's rows for it gathered by PostgreSQL as one JSON array, a part a
 * table, in the order {@link #SELECT} names them. An idle pass's load is this statement alone.
 * Stateless.
 */
final class RepoStateRead {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, String>> VARIABLES = new TypeReference<>() {};

  /**
   * Makes the repository's row if missing and locks it, before its state is read. The lock is a
   * statement of its own: the read after it takes its snapshot once the lock is held, so it sees
   * what the transaction that held it before wrote (a lock taken by the read itself would not).
   */
  private static final String LOCK =
      "insert into repo (repo) values (?) on conflict do nothing;\n"
          + "select 1 from repo where repo = ? for update;\n";

  /** The state, one part a table; no row when the repository has none. */
  private static final String SELECT =
      "select json_build_array("
          + String.join(
              ", ",
              rows("ref, generation", "repo_ref", "ref"),
              rows("pull, head, base", "repo_pull", "pull"),
              "coalesce((select rkey from repo_rerun t where t.repo = r.repo), '')",
              rows("pull", "repo_asked", "pull"),
              rows("pull, workflow", "repo_asked_only", ""),
              rows("tree, workflow, check_uri, subject", "repo_passed", "seq"),
              rows("subject, commit_id, base, workflows", "repo_dropped", "seq"),
              rows("ref, workflow, variables", "repo_wanted", "ref, seq"),
              rows("day, millis", "repo_used", ""),
              rows("day, millis", "repo_used_private", ""),
              rows("ref, state::text", "repo_queue", "ref"),
              rows("pull, head", "repo_ejected", "pull"))
          + ")::text from repo r where r.repo = ?";

  private RepoStateRead() {}

  /** A table's rows for the repository, each an array of {@code columns}, as one JSON array. */
  private static String rows(String columns, String table, String order) {
    return "(select coalesce(json_agg(json_build_array("
        + columns
        + ")"
        + (order.isEmpty() ? "" : " order by " + order)
        + "), '[]') from "
        + table
        + " t where t.repo = r.repo)";
  }

  /**
   * The repository's state, or null when it has none. With {@code lock}, its row is made if missing
   * and locked first, in the same round trip, for a transaction that writes it.
   */
  static RepoState read(Connection c, String repo, boolean lock) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(lock ? LOCK + SELECT : SELECT)) {
      int params = lock ? 3 : 1;
      for (int i = 1; i <= params; i++) {
        s.setString(i, repo);
      }
      boolean rows = s.execute();
      if (lock) {
        s.getMoreResults(); // the insert's count, then the lock's row
        rows = s.getMoreResults();
      }
      if (!rows) {
        throw new SQLException("the state of " + repo + " was not selected");
      }
      try (ResultSet r = s.getResultSet()) {
        return r.next() ? state(r.getString(1)) : null;
      }
    }
  }

  private static RepoState state(String json) throws SQLException {
    JsonNode p;
    try {
      p = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new SQLException("the state read is not JSON: " + e.getMessage(), e);
    }
    Map<String, Long> refs = new LinkedHashMap<>();
    p.get(0).forEach(r -> refs.put(text(r, 0), r.get(1).asLong()));
    Map<String, PullMark> pulls = new LinkedHashMap<>();
    p.get(1).forEach(r -> pulls.put(text(r, 0), new PullMark(text(r, 1), text(r, 2))));
    String rerun = p.get(2).asText();
    Set<String> asked = new LinkedHashSet<>();
    p.get(3).forEach(r -> asked.add(text(r, 0)));
    Map<String, Set<String>> askedOnly = new HashMap<>();
    p.get(4)
        .forEach(r -> askedOnly.computeIfAbsent(text(r, 0), k -> new HashSet<>()).add(text(r, 1)));
    List<PassedRun> passed = new ArrayList<>();
    p.get(5)
        .forEach(r -> passed.add(new PassedRun(text(r, 0), text(r, 1), text(r, 2), text(r, 3))));
    List<DroppedRun> dropped = new ArrayList<>();
    for (JsonNode r : p.get(6)) {
      List<String> workflows = new ArrayList<>();
      r.get(3).forEach(w -> workflows.add(w.asText()));
      dropped.add(new DroppedRun(text(r, 0), text(r, 1), text(r, 2), workflows));
    }
    Map<String, List<WantedRun>> wanted = new LinkedHashMap<>();
    for (JsonNode r : p.get(7)) {
      wanted
          .computeIfAbsent(text(r, 0), k -> new ArrayList<>())
          .add(new WantedRun(text(r, 1), variables(r.get(2))));
    }
    SortedMap<LocalDate, Long> used = days(p.get(8));
    SortedMap<LocalDate, Long> usedPrivate = days(p.get(9));
    Map<String, QueueState> queues = new LinkedHashMap<>();
    for (JsonNode r : p.get(10)) {
      queues.put(text(r, 0), queue(text(r, 0), text(r, 1)));
    }
    Map<String, String> ejected = new LinkedHashMap<>();
    p.get(11).forEach(r -> ejected.put(text(r, 0), text(r, 1)));
    return new RepoState(
        refs,
        pulls,
        rerun,
        asked,
        askedOnly,
        passed,
        dropped,
        wanted,
        used,
        usedPrivate,
        queues,
        ejected);
  }

  /** Column {@code i} of a row as text, null for SQL's null. */
  private static String text(JsonNode row, int i) {
    JsonNode v = row.get(i);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static SortedMap<LocalDate, Long> days(JsonNode rows) {
    SortedMap<LocalDate, Long> out = new TreeMap<>();
    rows.forEach(r -> out.put(LocalDate.parse(text(r, 0)), r.get(1).asLong()));
    return out;
  }

  private static QueueState queue(String ref, String json) throws SQLException {
    try {
      return QueueCodec.fromJson(ref, json);
    } catch (IllegalArgumentException e) {
      throw new SQLException("repo_queue.state of " + ref + ": " + e.getMessage(), e);
    }
  }

  private static Map<String, String> variables(JsonNode json) throws SQLException {
    if (!json.isObject()) {
      throw new SQLException("repo_wanted.variables is not a JSON object of strings: " + json);
    }
    try {
      return JSON.convertValue(json, VARIABLES);
    } catch (IllegalArgumentException e) {
      throw new SQLException("repo_wanted.variables is not a JSON object of strings: " + json, e);
    }
  }
}
