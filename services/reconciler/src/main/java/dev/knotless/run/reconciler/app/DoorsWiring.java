package dev.knotless.run.reconciler.app;

import dev.knotless.run.reconciler.domain.MeteredPass;
import dev.knotless.runner.doorbell.DoorClock;
import dev.knotless.runner.doorbell.Doors;
import dev.knotless.runner.doorbell.PassRunner;
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
  private ExecutorService passes;
  private ScheduledExecutorService timers;

  @Produces
  @Singleton
  Doors doors(PassRunner pass, MeterRegistry registry, ReconcilerConfig config) {
    passes = Executors.newFixedThreadPool(config.passThreads(), r -> new Thread(r, "pass"));
    timers = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "door-timer"));
    return new Doors(new MeteredPass(pass, registry), passes, DoorClock.of(timers), config.sweep());
  }

  @PreDestroy
  void stop() {
    if (passes != null) {
      passes.shutdownNow();
      timers.shutdownNow();
    }
  }
}
