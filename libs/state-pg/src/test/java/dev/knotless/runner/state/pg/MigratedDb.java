package dev.knotless.runner.state.pg;

import dev.knotless.testing.infra.EmbeddedPg;
import java.io.IOException;
import org.postgresql.ds.PGSimpleDataSource;

/** The tests' way into an embedded PostgreSQL: its schema migrated, then a plain data source. */
final class MigratedDb {
  private MigratedDb() {}

  /** Migrates {@code pg}'s schema (every migration in this module) and returns a source of it. */
  static PGSimpleDataSource open(EmbeddedPg pg) throws IOException {
    PgStateStores.open(pg.jdbcUrl(), "postgres", "postgres");
    PGSimpleDataSource db = new PGSimpleDataSource();
    db.setUrl(pg.jdbcUrl());
    db.setUser("postgres");
    db.setPassword("postgres");
    return db;
  }
}
