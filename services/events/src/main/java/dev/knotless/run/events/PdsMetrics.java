package dev.knotless.run.events;

import dev.knotless.atproto.XrpcObserver;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;

/**
 * Counts every call a service makes to a PDS as {@code knotless.run.pds.requests{method,outcome}}
 * and times it as {@code knotless.run.pds.request} (the histogram {@code
 * knotless_run_pds_request_seconds}), one name and one set of tags for every service that reports
 * it. Thread-safe.
 */
public final class PdsMetrics implements XrpcObserver {
  /** The counter's name. */
  public static final String REQUESTS = "knotless.run.pds.requests";

  /** The timer's name. */
  public static final String REQUEST = "knotless.run.pds.request";

  private final MeterRegistry registry;

  public PdsMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void called(String method, int status, long nanos) {
    registry.counter(REQUESTS, "method", method, "outcome", outcome(status)).increment();
    Histograms.seconds(REQUEST, "calls to a PDS, by XRPC method and outcome")
        .tag("method", method)
        .tag("outcome", outcome(status))
        .register(registry)
        .record(Duration.ofNanos(Math.max(0, nanos)));
  }

  /**
   * The outcome tag: {@code ok}, {@code client_error}, {@code server_error} or {@code no_status}.
   */
  static String outcome(int status) {
    if (status == 0) {
      return "no_status";
    } else if (status < 400) {
      return "ok";
    } else if (status < 500) {
      return "client_error";
    }
    return "server_error";
  }
}
