package dev.knotless.runner.state.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** One statement on a connection the caller holds: its arguments bound, its rows read. */
final class Jdbc {
  private Jdbc() {}

  /** Reads one row. */
  @FunctionalInterface
  interface Reader<T> {
    T read(ResultSet r) throws SQLException;
  }

  /** Runs an insert, update or delete; returns how many rows it touched. */
  static int update(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      bind(s, args);
      return s.executeUpdate();
    }
  }

  /** Runs a query, or a write {@code returning} rows, and reads every row. */
  static <T> List<T> query(Connection c, String sql, Reader<T> read, Object... args)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      bind(s, args);
      List<T> out = new ArrayList<>();
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          out.add(read.read(r));
        }
      }
      return out;
    }
  }

  /** Binds strings (null too), numbers, timestamps and arrays of text, in order. */
  static void bind(PreparedStatement s, Object... args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      if (a instanceof Long n) {
        s.setLong(i + 1, n);
      } else if (a instanceof Integer n) {
        s.setInt(i + 1, n);
      } else if (a instanceof java.sql.Timestamp t) {
        s.setTimestamp(i + 1, t);
      } else if (a instanceof String[] texts) {
        s.setArray(i + 1, s.getConnection().createArrayOf("text", texts));
      } else {
        s.setString(i + 1, (String) a);
      }
    }
  }
}
