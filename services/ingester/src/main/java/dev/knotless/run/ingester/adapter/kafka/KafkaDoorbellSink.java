package dev.knotless.run.ingester.adapter.kafka;

import dev.knotless.run.events.DoorbellMessage;
import dev.knotless.run.events.TraceParent;
import dev.knotless.run.events.Traces;
import dev.knotless.runner.doorbell.DoorMatcher;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.DoorbellSink;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WatchedRepo;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;
import org.jboss.logging.Logger;

/**
 * Publishes each ring to the doorbell topic, keyed {@code <owner did>/<repo key>} so every ring of
 * one repository lands on one partition, and counts what the broker acknowledged by reason.
 */
@ApplicationScoped
public class KafkaDoorbellSink implements DoorbellSink {
  /** How many doorbells may wait for the broker; past it a ring is dropped (the sweep recovers). */
  static final int BUFFER = 16_384;

  private static final Logger LOG = Logger.getLogger(KafkaDoorbellSink.class);

  private final DoorMatcher matcher;
  private final MeterRegistry registry;
  private final Tracer tracer;

  @Inject
  @Channel("doorbells")
  @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = BUFFER)
  Emitter<String> emitter;

  public KafkaDoorbellSink(DoorMatcher matcher, MeterRegistry registry, Tracer tracer) {
    this.matcher = matcher;
    this.registry = registry;
    this.tracer = tracer;
    for (String kind : DoorbellMessage.REASON_NAMES) {
      // At zero from the start, so an alert on their increase has a series to read.
      registry.counter("knotless.run.doorbells.failed", "reason", kind);
    }
  }

  @Override
  public void ring(RepoId repo, Doorbell reason) {
    String kind = DoorbellMessage.reasonName(reason);
    // Only a frame starts a trace: connects and sweeps ring every door and follow no push.
    Span span =
        "frame".equals(kind)
            ? Traces.start(tracer, Traces.DOORBELL, SpanKind.PRODUCER, Optional.empty())
                .setAttribute("knotless.repo", repo.toString())
            : Span.getInvalid();
    RecordHeaders headers = new RecordHeaders();
    Traces.parentOf(span).ifPresent(p -> headers.add(TraceParent.HEADER, p.header()));
    Message<String> message =
        Message.of(DoorbellMessage.encode(reason))
            .addMetadata(
                OutgoingKafkaRecordMetadata.<String>builder()
                    .withKey(repo.toString())
                    .withHeaders(headers)
                    .build())
            .withAck(
                () -> {
                  registry.counter("knotless.run.doorbells.published", "reason", kind).increment();
                  return CompletableFuture.completedFuture(null);
                })
            .withNack(
                failure -> {
                  // Lost rings are recovered by the next connection or sweep, which ring every
                  // door.
                  LOG.warnf(
                      "Doorbell %s for %s not published: %s", reason, repo, failure.toString());
                  registry.counter("knotless.run.doorbells.failed", "reason", kind).increment();
                  return CompletableFuture.completedFuture(null);
                });
    try {
      emitter.send(message);
    } catch (IllegalStateException e) {
      // The buffer is full (the broker is away) or the channel is closing: the same recovery holds.
      LOG.warnf("Doorbell %s for %s dropped: %s", reason, repo, e.getMessage());
      registry.counter("knotless.run.doorbells.failed", "reason", kind).increment();
      span.end();
      return;
    }
    span.end();
    LOG.debugf("Rang %s for %s", reason, repo);
  }

  @Override
  public void ringAll(Doorbell reason) {
    int rung = 0;
    for (WatchedRepo repo : matcher.watched().all()) {
      ring(repo.id(), reason);
      rung++;
    }
    LOG.infof("Rang every door (%d) for %s", rung, reason);
  }
}
