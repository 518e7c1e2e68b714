package dev.knotless.run.reconciler.adapter.db;

import dev.knotless.runner.state.pg.PgPullHeads;
import dev.knotless.runner.state.pg.PgRunQueue;
import dev.knotless.runner.state.pg.PgSpaceCursors;
import dev.knotless.runner.state.pg.PgWatchedRepos;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The shared tables this reconciler reads and writes, each through its one owner class in
 * libs/state-pg, over the service's one pool (Quarkus' Agroal datasource, which Flyway migrates).
 */
@ApplicationScoped
public class Tables {
  @Produces
  @Singleton
  PgRunQueue runQueue(AgroalDataSource db) {
    return new PgRunQueue(db);
  }

  @Produces
  @Singleton
  PgWatchedRepos watchedRepos(AgroalDataSource db) {
    return new PgWatchedRepos(db);
  }

  @Produces
  @Singleton
  PgPullHeads pullHeads(AgroalDataSource db) {
    return new PgPullHeads(db);
  }

  @Produces
  @Singleton
  PgSpaceCursors spaceCursors(AgroalDataSource db) {
    return new PgSpaceCursors(db);
  }
}
