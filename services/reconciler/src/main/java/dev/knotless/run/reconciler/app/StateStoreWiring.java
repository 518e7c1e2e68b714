package dev.knotless.run.reconciler.app;

import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.pg.PgStateStore;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The runner's state, in the service's PostgreSQL: libs/state-pg's store over the service's pool,
 * its schema migrated by Quarkus Flyway from state-pg's {@code db/migration/V1__state.sql}.
 */
@ApplicationScoped
public class StateStoreWiring {
  @Produces
  @Singleton
  StateStore stateStore(AgroalDataSource db) {
    return new PgStateStore(db);
  }
}
