package dev.knotless.run.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class PdsMetricsTest {
  @Test
  void eachCallIsTimedByItsMethodAndOutcome() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PdsMetrics metrics = new PdsMetrics(registry);
    metrics.called("com.atproto.repo.listRecords", 200, 1_000);
    metrics.called("com.atproto.repo.listRecords", 200, 1_000);
    metrics.called("com.atproto.repo.getRecord", 400, 1_000);
    metrics.called("com.atproto.repo.putRecord", 502, 2_000_000_000L);
    metrics.called("com.atproto.repo.putRecord", 0, 1_000);

    assertEquals(2, count(registry, "com.atproto.repo.listRecords", "ok"));
    assertEquals(1, count(registry, "com.atproto.repo.getRecord", "client_error"));
    assertEquals(1, count(registry, "com.atproto.repo.putRecord", "server_error"));
    assertEquals(1, count(registry, "com.atproto.repo.putRecord", "no_status"));
    // The duration is kept, not thrown away: a 2 s call lands in the 2.5 s bucket, not below.
    var slow =
        registry.get(PdsMetrics.REQUEST).tag("outcome", "server_error").timer().takeSnapshot();
    assertEquals(2.0, slow.total(java.util.concurrent.TimeUnit.SECONDS), 1e-9);
    for (var bucket : slow.histogramCounts()) {
      double le = bucket.bucket(java.util.concurrent.TimeUnit.SECONDS);
      assertEquals(le >= 2.5 ? 1.0 : 0.0, bucket.count(), "bucket le=" + le);
    }
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
