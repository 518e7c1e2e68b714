package dev.knotless.run.ingester.app;

import dev.knotless.runner.doorbell.DoorClock;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.DoorbellSink;
import dev.knotless.runner.doorbell.WebSocketSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * Connects the source at startup (its connection rings every door) and rings every door again every
 * {@code sweep}, the backstop for frames a stream dropped.
 */
@ApplicationScoped
public class IngesterLifecycle {
  private static final Logger LOG = Logger.getLogger(IngesterLifecycle.class);

  private final WebSocketSource source;
  private final DoorbellSink sink;
  private final DoorClock clock;
  private final Duration sweep;
  private volatile DoorClock.Cancellable next;
  private volatile boolean stopped;

  public IngesterLifecycle(
      WebSocketSource source, DoorbellSink sink, DoorClock clock, IngesterConfig config) {
    this.source = source;
    this.sink = sink;
    this.clock = clock;
    this.sweep = config.sweep();
    if (sweep.isZero() || sweep.isNegative()) {
      throw new IllegalArgumentException(
          "knotless.ingester.sweep must be a positive duration, got " + sweep);
    }
  }

  void start(@Observes StartupEvent event) {
    LOG.infof("Ingester follows %s; sweep every %s", source.getClass().getSimpleName(), sweep);
    source.start();
    scheduleSweep();
  }

  void stop(@Observes ShutdownEvent event) {
    stopped = true;
    DoorClock.Cancellable pending = next;
    if (pending != null) {
      pending.cancel();
    }
    source.close();
  }

  private void scheduleSweep() {
    if (!stopped) {
      next = clock.schedule(sweep, this::sweepNow);
    }
  }

  private void sweepNow() {
    // Scheduled one at a time, so a slow sweep delays the next rather than overlapping it.
    try {
      sink.ringAll(Doorbell.SWEEP);
    } finally {
      scheduleSweep();
    }
  }
}
