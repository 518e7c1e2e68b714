package dev.knotless.run.reconciler.app;

import dev.knotless.run.reconciler.adapter.db.RunQueue;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/** Publishes {@code knotless.run.runs.waiting} by class, read from the queue periodically. */
@ApplicationScoped
public class QueueGauges {
  private static final Logger LOG = Logger.getLogger(QueueGauges.class);

  private final RunQueue queue;
  private final Map<RunQueue.RunClass, AtomicLong> waiting = new EnumMap<>(RunQueue.RunClass.class);

  public QueueGauges(RunQueue queue, MeterRegistry registry) {
    this.queue = queue;
    for (RunQueue.RunClass c : RunQueue.RunClass.values()) {
      AtomicLong value = new AtomicLong();
      waiting.put(c, value);
      Gauge.builder("knotless.run.runs.waiting", value, AtomicLong::get)
          .tag("class", c.name().toLowerCase(java.util.Locale.ROOT))
          .register(registry);
    }
  }

  @Scheduled(
      every = "${knotless.reconciler.queue-gauge-refresh:10s}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  Uni<Void> refresh() {
    return queue
        .waitingByClass()
        .invoke(counts -> counts.forEach((c, n) -> waiting.get(c).set(n)))
        .onFailure()
        .invoke(e -> LOG.warnf("Run queue gauges not refreshed: %s", e.getMessage()))
        .onFailure()
        .recoverWithNull()
        .replaceWithVoid();
  }

  /** The last count read, for tests and logs. */
  public long waiting(RunQueue.RunClass runClass) {
    return waiting.get(runClass).get();
  }
}
