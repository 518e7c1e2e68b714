package dev.knotless.run.checkwriter.adapter.pds;

import dev.knotless.atproto.XrpcObserver;
import io.micrometer.core.instrument.MeterRegistry;

/** Counts every call to the PDS as {@code knotless.run.pds.requests{method,outcome}}. */
public final class PdsMetrics implements XrpcObserver {
  private final MeterRegistry registry;

  public PdsMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void called(String method, int status, long nanos) {
    registry
        .counter("knotless.run.pds.requests", "method", method, "outcome", outcome(status))
        .increment();
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
