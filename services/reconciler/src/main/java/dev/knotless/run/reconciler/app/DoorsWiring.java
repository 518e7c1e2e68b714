package dev.knotless.run.reconciler.app;

import dev.knotless.run.events.Traces;
import dev.knotless.run.reconciler.domain.MeteredPass;
import dev.knotless.runner.doorbell.DoorClock;
import dev.knotless.runner.doorbell.Doors;
import dev.knotless.runner.doorbell.PassRunner;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** Builds the doors, one per repository, that turn doorbells into passes. */
@ApplicationScoped
public class DoorsWiring {
  /** Exported as {@code knotless_run_doorbells_waiting}. */
  static final String DOORS_WAITING = "knotless.run.doorbells.waiting";

  /** Exported as {@code knotless_run_doorbells_lag_seconds}. */
  static final String DOORBELL_LAG = "knotless.run.doorbells.lag";

  private ExecutorService passes;
  private ScheduledExecutorService timers;

  @Produces
  @Singleton
  Doors doors(PassRunner pass, MeterRegistry registry, ReconcilerConfig config) {
    passes = Executors.newFixedThreadPool(config.passThreads(), r -> new Thread(r, "pass"));
    timers = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "door-timer"));
    Doors doors =
        new Doors(new MeteredPass(pass, registry), passes, DoorClock.of(timers), config.sweep());
    // The doorbell lag this replica has: what to scale reconcilers on (docs/distributed.md).
    Gauge.builder(DOORS_WAITING, doors, d -> d.backlog().waiting())
        .description("repositories rung whose pass is due and not begun, in this replica")
        .strongReference(true)
        .register(registry);
    Gauge.builder(DOORBELL_LAG, doors, d -> d.backlog().oldest().toNanos() / 1e9)
        .description("how long the oldest pass due and not begun has waited, in this replica")
        .baseUnit("seconds")
        .strongReference(true)
        .register(registry);
    return doors;
  }

  /** The traces doorbells continue, each waiting for its repository's next pass. */
  @Produces
  @Singleton
  Traces.Waiting traces() {
    return new Traces.Waiting();
  }

  @PreDestroy
  void stop() {
    if (passes != null) {
      passes.shutdownNow();
      timers.shutdownNow();
      try {
        dev.knotless.runner.repopass.RepoPass.stopTidying();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
