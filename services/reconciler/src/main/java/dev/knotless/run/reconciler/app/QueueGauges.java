package dev.knotless.run.reconciler.app;

import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.WaitReason;
import dev.knotless.runner.state.pg.PgRunQueue;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Publishes {@code knotless.run.runs.waiting} by class and reason, read from the shared queue
 * periodically. Every replica reports the whole queue, so the series of two replicas are the same
 * runs twice: read them with {@code max}, never {@code sum} (docs/metrics.md).
 */
@ApplicationScoped
public class QueueGauges {
  private static final Logger LOG = Logger.getLogger(QueueGauges.class);

  /** The reasons the queue alone tells apart ({@link PgRunQueue#waitingByClassAndReason}). */
  static final List<WaitReason> REASONS = List.of(WaitReason.JOB, WaitReason.TURN);

  private final PgRunQueue queue;
  private final Map<RunClass, Map<WaitReason, AtomicLong>> waiting = new EnumMap<>(RunClass.class);

  public QueueGauges(PgRunQueue queue, MeterRegistry registry) {
    this.queue = queue;
    for (RunClass c : RunClass.values()) {
      Map<WaitReason, AtomicLong> byReason = new EnumMap<>(WaitReason.class);
      waiting.put(c, byReason);
      for (WaitReason r : REASONS) {
        AtomicLong value = new AtomicLong();
        byReason.put(r, value);
        Gauge.builder("knotless.run.runs.waiting", value, AtomicLong::get)
            .description("runs waiting in the shared queue; every replica reports them all")
            .tag("class", c.tag())
            .tag("reason", r.tag())
            .register(registry);
      }
    }
  }

  // A blocking method: Quarkus runs it on a worker thread, never on an event loop.
  @Scheduled(
      every = "${knotless.reconciler.queue-gauge-refresh:10s}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  void refresh() {
    try {
      queue
          .waitingByClassAndReason()
          .forEach((c, byReason) -> byReason.forEach((r, n) -> waiting.get(c).get(r).set(n)));
    } catch (SQLException e) {
      LOG.warnf("Run queue gauges not refreshed: %s", e.getMessage());
    }
  }

  /** The last count read, over every reason, for tests and logs. */
  public long waiting(RunClass runClass) {
    return waiting.get(runClass).values().stream().mapToLong(AtomicLong::get).sum();
  }
}
