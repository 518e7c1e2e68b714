package dev.knotless.run.checkwriter.adapter.kafka;

import dev.knotless.run.checkwriter.app.CheckWriter;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.events.RunEventJson;
import dev.knotless.run.events.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.Record;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

/**
 * Hands each run event on the topic to the {@link CheckWriter}, one at a time, in order. The offset
 * is committed only after the writer returns, so an event whose state is not yet on disk or filed
 * is read again after a restart; a failure stops the channel (and readiness) rather than skip it.
 * An event that cannot be read goes to {@link Topics#RUN_EVENTS_DEAD} with the reason, and the
 * consumer moves on.
 */
@ApplicationScoped
public class RunEventConsumer {
  private static final Logger LOG = Logger.getLogger(RunEventConsumer.class);

  private final CheckWriter writer;

  @Inject
  @Channel("run-events-dead")
  MutinyEmitter<String> dead;

  private final MeterRegistry registry;

  public RunEventConsumer(CheckWriter writer, MeterRegistry registry) {
    this.writer = writer;
    this.registry = registry;
  }

  @Incoming("run-events")
  @Blocking
  public void consume(Record<String, String> record) throws IOException {
    RunEvent event;
    try {
      event = RunEventJson.decode(record.value() == null ? "" : record.value());
    } catch (IllegalArgumentException e) {
      // A malformed event cannot become valid by reading it again: it goes to the dead-letter
      // topic with the reason, and the consumer moves on.
      LOG.warnf(
          "run event with key %s sent to %s: %s",
          record.key(), Topics.RUN_EVENTS_DEAD, e.getMessage());
      registry.counter("knotless.run.check_writer.events", "type", "invalid").increment();
      dead.send(
          Message.of(RunEventJson.deadLetter(record.key(), record.value(), e.getMessage()))
              .addMetadata(
                  OutgoingKafkaRecordMetadata.<String>builder()
                      .withKey(record.key() == null ? "" : record.key())
                      .build()));
      return;
    }
    registry
        .counter("knotless.run.check_writer.events", "type", event.getClass().getSimpleName())
        .increment();
    writer.handle(event);
  }
}
