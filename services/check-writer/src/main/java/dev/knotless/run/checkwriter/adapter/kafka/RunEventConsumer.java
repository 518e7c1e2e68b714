package dev.knotless.run.checkwriter.adapter.kafka;

import dev.knotless.run.checkwriter.app.CheckWriter;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.events.RunEventJson;
import dev.knotless.run.events.Topics;
import dev.knotless.run.events.TraceParent;
import dev.knotless.run.events.Traces;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

/**
 * Hands each run event on the topic to the {@link CheckWriter}, one at a time, in order. The offset
 * is committed only after the writer returns, so an event whose state is not yet committed or filed
 * is read again after a restart; a failure stops the channel (and readiness) rather than skip it.
 * An event that cannot be read, or that names no run the queue issued, goes to {@link
 * Topics#RUN_EVENTS_DEAD} with the reason, and the consumer moves on. Each event is a span ({@link
 * Traces#EVENT}) in the trace its record's {@code traceparent} header names: the run's.
 */
@ApplicationScoped
public class RunEventConsumer {
  private static final Logger LOG = Logger.getLogger(RunEventConsumer.class);

  private final CheckWriter writer;

  @Inject
  @Channel("run-events-dead")
  MutinyEmitter<String> dead;

  private final MeterRegistry registry;
  private final Tracer tracer;

  public RunEventConsumer(CheckWriter writer, MeterRegistry registry, Tracer tracer) {
    this.writer = writer;
    this.registry = registry;
    this.tracer = tracer;
    for (String reason : new String[] {"invalid", "refused"}) {
      registry.counter(DEAD_LETTERS, "reason", reason);
    }
  }

  /** Events set aside on the dead-letter topic, by why. */
  static final String DEAD_LETTERS = "knotless.run.check_writer.dead.letters";

  @Incoming("run-events")
  @Blocking
  public void consume(ConsumerRecord<String, String> record) throws IOException {
    List<byte[]> parents = new ArrayList<>();
    record.headers().headers(TraceParent.HEADER).forEach(h -> parents.add(h.value()));
    Span span =
        Traces.start(tracer, Traces.EVENT, SpanKind.CONSUMER, TraceParent.fromHeaders(parents))
            .setAttribute("knotless.check", record.key() == null ? "" : record.key());
    try {
      file(record, span);
    } finally {
      span.end();
    }
  }

  private void file(ConsumerRecord<String, String> record, Span span) throws IOException {
    RunEvent event;
    try {
      event = RunEventJson.decode(record.value() == null ? "" : record.value());
    } catch (IllegalArgumentException e) {
      // A malformed event cannot become valid by reading it again.
      deadLetter(record, "invalid", e.getMessage());
      return;
    }
    span.setAttribute("knotless.event", event.getClass().getSimpleName());
    Optional<String> refused = writer.handle(event);
    if (refused.isPresent()) {
      // An event for a run the queue never issued is not filed, and reading it again changes
      // nothing: it goes aside with the reason.
      deadLetter(record, "refused", refused.get());
      return;
    }
    registry
        .counter("knotless.run.check_writer.events", "type", event.getClass().getSimpleName())
        .increment();
  }

  private void deadLetter(ConsumerRecord<String, String> record, String type, String reason) {
    LOG.warnf("run event with key %s sent to %s: %s", record.key(), Topics.RUN_EVENTS_DEAD, reason);
    registry.counter("knotless.run.check_writer.events", "type", type).increment();
    registry.counter(DEAD_LETTERS, "reason", type).increment();
    dead.send(
        Message.of(RunEventJson.deadLetter(record.key(), record.value(), reason))
            .addMetadata(
                OutgoingKafkaRecordMetadata.<String>builder()
                    .withKey(record.key() == null ? "" : record.key())
                    .build()));
  }
}
