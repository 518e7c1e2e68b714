package dev.knotless.run.events;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The scheduler's open {@link Traces#RUN} spans, one per run it holds, from its taking to its end:
 * each continues the trace its queued row names, and names itself on every event of the run, so the
 * check-writer's spans join the same trace. Bounded like {@link Traces.Waiting}.
 */
public final class RunSpans {
  private final Tracer tracer;
  private final Map<String, Span> open = new ConcurrentHashMap<>();

  public RunSpans(Tracer tracer) {
    this.tracer = tracer;
  }

  /** Begins the span of the run {@code checkKey}, continuing {@code parent}'s trace. */
  public void begin(String checkKey, Optional<TraceParent> parent) {
    if (open.size() >= Traces.Waiting.LIMIT) {
      return;
    }
    Span span =
        Traces.start(tracer, Traces.RUN, SpanKind.CONSUMER, parent)
            .setAttribute("knotless.check", checkKey);
    Span was = open.put(checkKey, span);
    if (was != null) {
      was.end();
    }
  }

  /** What the events of the run {@code checkKey} name as their parent; none for a run not open. */
  public Optional<TraceParent> parentOf(String checkKey) {
    Span span = open.get(checkKey);
    return span == null ? Optional.empty() : Traces.parentOf(span);
  }

  /** Ends the span of the run {@code checkKey}, if it is open; ending it again does nothing. */
  public void end(String checkKey) {
    Span span = open.remove(checkKey);
    if (span != null) {
      span.end();
    }
  }

  /** How many runs' spans are open. */
  public int open() {
    return open.size();
  }
}
