package dev.knotless.run.reconciler.app;

import dev.knotless.run.reconciler.adapter.db.PgStateStore;
import dev.knotless.runner.state.StateStore;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The runner's state, in the service's PostgreSQL. */
@ApplicationScoped
public class StateStoreWiring {
  @Produces
  @Singleton
  StateStore stateStore(AgroalDataSource db) {
    return new PgStateStore(db);
  }
}
