package dev.knotless.testing.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class EmbeddedPgIT {
  @Test
  void rowsWrittenBeforeARestartAreReadAfterIt() throws Exception {
    try (EmbeddedPg pg = EmbeddedPg.start()) {
      System.out.printf("postgres ready in %d ms%n", pg.lastReadyMillis());
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), "postgres", "postgres");
          Statement s = c.createStatement()) {
        s.execute("create table t (v text)");
        s.execute("insert into t values ('kept')");
      }
      pg.restart();
      System.out.printf("postgres ready again in %d ms%n", pg.lastReadyMillis());
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), "postgres", "postgres");
          Statement s = c.createStatement();
          ResultSet r = s.executeQuery("select v from t")) {
        r.next();
        assertEquals("kept", r.getString(1));
      }
    }
  }
}
