package dev.knotless.run.reconciler.adapter.kafka;

import dev.knotless.run.events.DoorbellMessage;
import dev.knotless.run.events.TraceParent;
import dev.knotless.run.events.Traces;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.Doors;
import dev.knotless.runner.doorbell.RepoId;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Rings a repository's door for each doorbell on the topic. Kafka gives each partition, and so each
 * repository, to one reconciler; the doors then run one pass at a time per repository and fold the
 * rings that arrive during a pass into one more. A doorbell carries when it was made (the record's
 * timestamp), so a connect or sweep ring made before a pass began is answered by that pass. The
 * trace a doorbell's {@code traceparent} header names waits for the repository's next pass.
 */
@ApplicationScoped
public class DoorbellConsumer {
  private static final Logger LOG = Logger.getLogger(DoorbellConsumer.class);

  /** What the ingester's clock may be behind this one's, for when a doorbell was made. */
  static final long SKEW_MILLIS = 1_000;

  private final Doors doors;
  private final MeterRegistry registry;
  private final Traces.Waiting traces;

  public DoorbellConsumer(Doors doors, MeterRegistry registry, Traces.Waiting traces) {
    this.doors = doors;
    this.registry = registry;
    this.traces = traces;
  }

  @Incoming("doorbells")
  public void consume(ConsumerRecord<String, String> record) {
    RepoId repo;
    Doorbell bell;
    try {
      repo = RepoId.parse(record.key() == null ? "" : record.key());
      bell = DoorbellMessage.decode(record.value() == null ? "" : record.value());
    } catch (IllegalArgumentException e) {
      // A malformed doorbell cannot become valid by retrying; it is logged and passed over.
      LOG.warnf("Doorbell with key %s passed over: %s", record.key(), e.getMessage());
      registry.counter("knotless.run.doorbells.received", "reason", "invalid").increment();
      return;
    }
    registry
        .counter("knotless.run.doorbells.received", "reason", DoorbellMessage.reasonName(bell))
        .increment();
    List<byte[]> parents = new ArrayList<>();
    record.headers().headers(TraceParent.HEADER).forEach(h -> parents.add(h.value()));
    traces.offer(repo.toString(), TraceParent.fromHeaders(parents));
    doors.open(repo);
    doors.ring(repo, bell, record.timestamp() + SKEW_MILLIS);
  }
}
