package dev.knotless.run.reconciler;

import dev.knotless.run.reconciler.adapter.db.PgStateStore;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.StateStoreContract;
import dev.knotless.testing.infra.EmbeddedPg;
import java.sql.Connection;
import java.sql.Statement;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.postgresql.ds.PGSimpleDataSource;

/** The state store contract, against the PostgreSQL store on a real server. */
class PgStateStoreIT extends StateStoreContract {
  private static EmbeddedPg pg;
  private static PGSimpleDataSource db;

  @BeforeAll
  static void startPostgres() throws Exception {
    pg = EmbeddedPg.start();
    db = new PGSimpleDataSource();
    db.setUrl(pg.jdbcUrl());
    db.setUser("postgres");
    db.setPassword("postgres");
    Flyway.configure().dataSource(db).locations("classpath:db/migration").load().migrate();
  }

  @AfterAll
  static void stopPostgres() throws Exception {
    pg.close();
  }

  @BeforeEach
  void emptyTheTables() throws Exception {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("truncate repo, runner_discovered, runner_invited cascade");
    }
  }

  @Override
  protected StateStore newStore() {
    return new PgStateStore(db);
  }

  @Override
  protected StateStore reopen(StateStore store) {
    return new PgStateStore(db);
  }
}
