package dev.knotless.runner.state.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.state.PullMark;
import dev.knotless.runner.state.RepoState;
import dev.knotless.testing.infra.EmbeddedPg;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * What a pass's state reads and writes cost PostgreSQL, counted as the statements the store
 * prepares (each prepared statement is one round trip): a load is one, an update that changes
 * nothing reads in one and writes nothing, and one that moves a ref rewrites that table alone,
 * leaving the rest of the state as it was.
 */
class PgStateTripsIT {
  private static final String REPO = "did:plc:trips/3kabc";
  private static EmbeddedPg pg;
  private static PGSimpleDataSource db;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPg.start();
    db = MigratedDb.open(pg);
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @Test
  void aLoadIsOneTripAnUnchangedUpdateWritesNothingAndAMovedRefOneTable() throws Exception {
    List<String> sql = Collections.synchronizedList(new ArrayList<>());
    PgStateStore store = new PgStateStore(counting(db, sql));
    PullMark mark = new PullMark("a".repeat(40), "b".repeat(40));
    store.update(
        REPO,
        s ->
            s.withRef("refs/heads/main", 3)
                .withPull("at://did:plc:trips/dev.knotless.pull/3kp", mark)
                .withRerun("3krerun"));

    sql.clear();
    RepoState known = store.load(REPO).orElseThrow();
    assertEquals(1, sql.size(), "a load: " + sql);

    sql.clear();
    store.update(REPO, s -> s);
    assertEquals(1, sql.size(), "an update that changes nothing: " + sql);
    assertTrue(sql.get(0).contains("for update"), sql.get(0));

    sql.clear();
    store.update(REPO, s -> s.withRef("refs/heads/main", 4));
    assertEquals(3, sql.size(), "an update of one ref: " + sql);
    assertTrue(sql.get(1).startsWith("delete from repo_ref "), sql.get(1));
    assertTrue(sql.get(2).startsWith("insert into repo_ref "), sql.get(2));

    assertEquals(known.withRef("refs/heads/main", 4), store.load(REPO).orElseThrow());
    assertEquals(
        RepoState.empty(),
        new PgStateStore(db).load("did:plc:trips/3knone").orElse(RepoState.empty()));
  }

  /** {@code db}, noting the SQL of every statement its connections prepare in {@code sql}. */
  private static DataSource counting(DataSource db, List<String> sql) {
    return new DataSource() {
      @Override
      public Connection getConnection() throws SQLException {
        return noting(db.getConnection(), sql);
      }

      @Override
      public Connection getConnection(String user, String password) throws SQLException {
        return noting(db.getConnection(user, password), sql);
      }

      @Override
      public PrintWriter getLogWriter() throws SQLException {
        return db.getLogWriter();
      }

      @Override
      public void setLogWriter(PrintWriter out) throws SQLException {
        db.setLogWriter(out);
      }

      @Override
      public void setLoginTimeout(int seconds) throws SQLException {
        db.setLoginTimeout(seconds);
      }

      @Override
      public int getLoginTimeout() throws SQLException {
        return db.getLoginTimeout();
      }

      @Override
      public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return db.getParentLogger();
      }

      @Override
      public <T> T unwrap(Class<T> iface) throws SQLException {
        return db.unwrap(iface);
      }

      @Override
      public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return db.isWrapperFor(iface);
      }
    };
  }

  private static Connection noting(Connection c, List<String> sql) {
    return (Connection)
        Proxy.newProxyInstance(
            PgStateTripsIT.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().startsWith("prepare")
                  || method.getName().equals("createStatement")) {
                sql.add(args == null ? "(statement)" : String.valueOf(args[0]));
              }
              try {
                return method.invoke(c, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
