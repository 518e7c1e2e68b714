package dev.knotless.run.reconciler.app;

import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.state.pg.PgRunQueue;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/** Publishes {@code knotless.run.runs.waiting} by class, read from the queue periodically. */
@ApplicationScoped
public class QueueGauges {
  private static final Logger LOG = Logger.getLogger(QueueGauges.class);

  private final PgRunQueue queue;
  private final Map<RunClass, AtomicLong> waiting = new EnumMap<>(RunClass.class);

  public QueueGauges(PgRunQueue queue, MeterRegistry registry) {
    this.queue = queue;
    for (RunClass c : RunClass.values()) {
      AtomicLong value = new AtomicLong();
      waiting.put(c, value);
      Gauge.builder("knotless.run.runs.waiting", value, AtomicLong::get)
          .tag("class", c.tag())
          .register(registry);
    }
  }

  // A blocking method: Quarkus runs it on a worker thread, never on an event loop.
  @Scheduled(
      every = "${knotless.reconciler.queue-gauge-refresh:10s}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  void refresh() {
    try {
      queue.waitingByClass().forEach((c, n) -> waiting.get(c).set(n));
    } catch (SQLException e) {
      LOG.warnf("Run queue gauges not refreshed: %s", e.getMessage());
    }
  }

  /** The last count read, for tests and logs. */
  public long waiting(RunClass runClass) {
    return waiting.get(runClass).get();
  }
}
