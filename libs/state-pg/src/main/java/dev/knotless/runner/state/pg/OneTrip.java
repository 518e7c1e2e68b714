package dev.knotless.runner.state.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Statements about one repository, each taking it as its one parameter, sent to PostgreSQL as one
 * batch and answered in one round trip (the driver sends a string of statements parsed, bound and
 * executed together, under one sync). The server runs them in order: a row lock taken by one holds
 * for those after it. Not thread-safe; used once.
 */
final class OneTrip {
  /** Reads the rows one select returned. */
  interface RowReader {
    void read(ResultSet r) throws SQLException;
  }

  private final List<String> sql = new ArrayList<>();
  private final List<RowReader> readers = new ArrayList<>();
  private boolean found;

  /**
   * A batch that starts with {@code before}, the last of which selects the repository's own row:
   * {@link #run} says whether it found one.
   */
  OneTrip(List<String> before) {
    for (int i = 0; i < before.size(); i++) {
      boolean last = i == before.size() - 1;
      add(before.get(i), last ? r -> found = true : null);
    }
  }

  /** Adds a select; {@code reader} sees each row it returns. */
  OneTrip add(String select, RowReader reader) {
    sql.add(select);
    readers.add(reader);
    return this;
  }

  /**
   * Runs every statement in one round trip.
   *
   * @return whether the repository's own row was found
   */
  boolean run(Connection c, String repo) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(String.join(";\n", sql))) {
      for (int i = 1; i <= sql.size(); i++) {
        s.setString(i, repo);
      }
      boolean rows = s.execute();
      for (int i = 0; i < sql.size(); i++) {
        if (i > 0) {
          rows = s.getMoreResults();
        }
        RowReader reader = readers.get(i);
        if (rows && reader != null) {
          try (ResultSet r = s.getResultSet()) {
            while (r.next()) {
              reader.read(r);
            }
          }
        }
      }
    }
    return found;
  }
}
