package dev.knotless.run.events;

import dev.knotless.atproto.XrpcObserver;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts every call a service makes to a PDS as {@code knotless.run.pds.requests{method,outcome}},
 * one name and one set of tags for every service that reports it. Thread-safe.
 */
public final class PdsMetrics implements XrpcObserver {
  /** The counter's name. */
  public static final String REQUESTS = "knotless.run.pds.requests";

  private final MeterRegistry registry;

  public PdsMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void called(String method, int status, long nanos) {
    registry.counter(REQUESTS, "method", method, "outcome", outcome(status)).increment();
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
