package dev.knotless.run.events;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The spans the services make for one push, and the {@link TraceParent} that ties them into one
 * trace across Kafka and the run queue. With tracing off (the default) the tracer makes spans that
 * record nothing, whose context is invalid: then {@link #parentOf} is empty and nothing is carried.
 *
 * <p>The spans, in the order a push meets them: {@link #DOORBELL} (ingester, a frame's doorbell),
 * {@link #PASS} (reconciler, the pass the doorbell rang), {@link #QUEUED} (reconciler, a run filed
 * and queued), {@link #RUN} (scheduler, a run from its taking to its end, pod and all) and {@link
 * #EVENT} (check-writer, one run event filed on the check).
 */
public final class Traces {
  public static final String DOORBELL = "doorbell";
  public static final String PASS = "reconcile pass";
  public static final String QUEUED = "run queued";
  public static final String RUN = "run";
  public static final String EVENT = "check event";

  private Traces() {}

  /**
   * Starts the span {@code name}, continuing {@code parent}'s trace when there is one, a trace of
   * its own otherwise.
   */
  public static Span start(
      Tracer tracer, String name, SpanKind kind, Optional<TraceParent> parent) {
    var builder = tracer.spanBuilder(name).setSpanKind(kind);
    if (parent.isPresent()) {
      TraceParent p = parent.get();
      SpanContext remote =
          SpanContext.createFromRemoteParent(
              p.traceId(),
              p.spanId(),
              p.sampled() ? TraceFlags.getSampled() : TraceFlags.getDefault(),
              TraceState.getDefault());
      builder.setParent(Context.root().with(Span.wrap(remote)));
    } else {
      builder.setNoParent();
    }
    return builder.startSpan();
  }

  /**
   * What a span's children elsewhere name as their parent; none for a span that records nothing.
   */
  public static Optional<TraceParent> parentOf(Span span) {
    SpanContext c = span.getSpanContext();
    if (!c.isValid()) {
      return Optional.empty();
    }
    return TraceParent.parse(
        "00-" + c.getTraceId() + "-" + c.getSpanId() + "-" + c.getTraceFlags().asHex());
  }

  /** {@link #parentOf} the span current on this thread (a pass's, while it runs). */
  public static Optional<TraceParent> current() {
    return parentOf(Span.current());
  }

  /**
   * The parents waiting for work keyed by a repository or a check: a doorbell's until its pass
   * begins, a run's until it ends. Bounded: past {@link #LIMIT} a new key is not kept (its work
   * starts a trace of its own), so a flood of doorbells cannot grow it without end.
   */
  public static final class Waiting {
    public static final int LIMIT = 10_000;

    private final Map<String, TraceParent> byKey = new ConcurrentHashMap<>();

    /** Keeps {@code parent} for {@code key} unless one is kept already (the oldest rang first). */
    public void offer(String key, Optional<TraceParent> parent) {
      if (parent.isPresent() && byKey.size() < LIMIT) {
        byKey.putIfAbsent(key, parent.get());
      }
    }

    /** The parent kept for {@code key}, no longer kept. */
    public Optional<TraceParent> take(String key) {
      return Optional.ofNullable(byKey.remove(key));
    }

    /** How many are kept. */
    public int size() {
      return byKey.size();
    }
  }
}
