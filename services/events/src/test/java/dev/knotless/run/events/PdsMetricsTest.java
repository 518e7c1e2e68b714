package dev.knotless.run.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class PdsMetricsTest {
  @Test
  void eachCallIsCountedByItsMethodAndOutcome() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PdsMetrics metrics = new PdsMetrics(registry);
    metrics.called("com.atproto.repo.listRecords", 200, 1_000);
    metrics.called("com.atproto.repo.listRecords", 200, 1_000);
    metrics.called("com.atproto.repo.getRecord", 400, 1_000);
    metrics.called("com.atproto.repo.putRecord", 502, 1_000);
    metrics.called("com.atproto.repo.putRecord", 0, 1_000);

    assertEquals(2, count(registry, "com.atproto.repo.listRecords", "ok"));
    assertEquals(1, count(registry, "com.atproto.repo.getRecord", "client_error"));
    assertEquals(1, count(registry, "com.atproto.repo.putRecord", "server_error"));
    assertEquals(1, count(registry, "com.atproto.repo.putRecord", "no_status"));
  }

  private static double count(SimpleMeterRegistry registry, String method, String outcome) {
    return registry
        .get(PdsMetrics.REQUESTS)
        .tag("method", method)
        .tag("outcome", outcome)
        .counter()
        .count();
  }
}
