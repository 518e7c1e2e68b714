package dev.knotless.testing.infra;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

/**
 * The statements every client sent a server of {@link EmbeddedPg#startCounting}, as its {@code
 * pg_stat_statements} counts them: one call for each statement executed, a string of several sent
 * at once counted as each of them, {@code BEGIN} among them. Its own reads are left out, and so is
 * the {@code SET application_name} the JDBC driver sends as a connection opens (this class's own
 * connections open one each). Not thread-safe.
 */
public final class StatementCounts {
  private final String url;

  private StatementCounts(String url) {
    this.url = url;
  }

  /** Counts on {@code pg}, which was started counting; the extension is made if missing. */
  public static StatementCounts on(EmbeddedPg pg) throws SQLException {
    StatementCounts counts = new StatementCounts(pg.jdbcUrl());
    counts.run("create extension if not exists pg_stat_statements");
    return counts;
  }

  /** Forgets every count so far. */
  public void reset() throws SQLException {
    run("select pg_stat_statements_reset()");
  }

  /** The calls of each statement since the last {@link #reset}, by its normalized text. */
  public Map<String, Long> calls() throws SQLException {
    Map<String, Long> out = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(url, "postgres", "postgres");
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "select query, calls from pg_stat_statements where query not like"
                    + " '%pg_stat_statements%' and query not like 'SET application_name%'")) {
      while (r.next()) {
        out.merge(r.getString(1), r.getLong(2), Long::sum);
      }
    }
    return out;
  }

  /** The sum of {@code calls}. */
  public static long total(Map<String, Long> calls) {
    return calls.values().stream().mapToLong(Long::longValue).sum();
  }

  private void run(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", "postgres");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
