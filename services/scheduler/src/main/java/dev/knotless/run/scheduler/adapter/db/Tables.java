package dev.knotless.run.scheduler.adapter.db;

import dev.knotless.runner.state.pg.PgRunQueue;
import dev.knotless.runner.state.pg.PgStateStore;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The shared tables the scheduler reads and writes, each through its one owner class in
 * libs/state-pg, over the service's one pool (Quarkus' Agroal datasource). The schema is migrated
 * by the reconcilers and check-writers, not here.
 */
@ApplicationScoped
public class Tables {
  @Produces
  @Singleton
  PgRunQueue runQueue(AgroalDataSource db) {
    return new PgRunQueue(db);
  }

  /** The repositories' states: a trusted pull's pass is kept there when its pod run passes. */
  @Produces
  @Singleton
  PgStateStore repoStates(AgroalDataSource db) {
    return new PgStateStore(db);
  }
}
