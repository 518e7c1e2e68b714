package dev.knotless.allinone.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.exec.cache.CacheFigures;
import dev.knotless.runner.exec.cache.CacheStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RunnerMetricsTest {

  @Test
  void theCachesFiguresAreCountersThatReadTheFiguresAsTheyAreNow() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AtomicReference<CacheFigures.Snapshot> now =
        new AtomicReference<>(new CacheFigures.Snapshot(1, 2, 3, 4, 5, 6, 7, 8000, 9, 11));
    new RunnerMetrics(registry).watchCaches(now::get);
    assertEquals(1, registry.get("knotless.run.cache.hits").functionCounter().count());
    assertEquals(2, registry.get("knotless.run.cache.misses").functionCounter().count());
    assertEquals(3, registry.get("knotless.run.cache.promotions").functionCounter().count());
    assertEquals(4, registry.get("knotless.run.cache.promoted.bytes").functionCounter().count());
    assertEquals(5, registry.get("knotless.run.cache.not.promoted").functionCounter().count());
    assertEquals(6, registry.get("knotless.run.cache.shed.bases").functionCounter().count());
    assertEquals(7, registry.get("knotless.run.cache.shed.bytes").functionCounter().count());
    assertEquals(
        8.0, registry.get("knotless.run.cache.floor.wait.seconds").functionCounter().count());
    assertEquals(9, registry.get("knotless.run.cache.kept.layers").functionCounter().count());
    assertEquals(11, registry.get("knotless.run.cache.shed.kept").functionCounter().count());
    now.set(new CacheFigures.Snapshot(10, 2, 3, 4, 5, 6, 7, 8000, 9, 11));
    assertEquals(10, registry.get("knotless.run.cache.hits").functionCounter().count());
  }

  @Test
  void theCachesSizesAreGaugesThatReadThemAsTheyAreNow() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AtomicReference<CacheStore.Amount> bases = new AtomicReference<>(new CacheStore.Amount(2, 300));
    AtomicReference<CacheStore.Amount> kept = new AtomicReference<>(new CacheStore.Amount(1, 40));
    new RunnerMetrics(registry).watchCacheSizes(bases::get, kept::get);
    assertEquals(2, registry.get("knotless.run.cache.bases").gauge().value());
    assertEquals(300, registry.get("knotless.run.cache.bases.bytes").gauge().value());
    assertEquals(1, registry.get("knotless.run.cache.kept").gauge().value());
    assertEquals(40, registry.get("knotless.run.cache.kept.bytes").gauge().value());
    bases.set(new CacheStore.Amount(3, 500));
    kept.set(new CacheStore.Amount(0, 0));
    assertEquals(500, registry.get("knotless.run.cache.bases.bytes").gauge().value());
    assertEquals(0, registry.get("knotless.run.cache.kept").gauge().value());
  }

  @Test
  void theCachesSeriesAreTheOnesDocsMetricsMdGivesTheAllInOneWithCaches() {
    io.micrometer.prometheus.PrometheusMeterRegistry registry =
        new io.micrometer.prometheus.PrometheusMeterRegistry(
            io.micrometer.prometheus.PrometheusConfig.DEFAULT);
    RunnerMetrics metrics = new RunnerMetrics(registry);
    metrics.watchCaches(() -> new CacheFigures.Snapshot(1, 2, 3, 4, 5, 6, 7, 8000, 9, 11));
    metrics.watchCacheSizes(() -> new CacheStore.Amount(2, 300), () -> new CacheStore.Amount(1, 4));
    java.util.Set<String> exported = new java.util.TreeSet<>();
    for (String line : registry.scrape().split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        exported.add(line.split("[{ ]", 2)[0]);
      }
    }
    java.nio.file.Path root =
        java.nio.file.Path.of(System.getProperty("knotless.repo.root", "../..")).toAbsolutePath();
    assertEquals(
        java.util.List.of(),
        dev.knotless.testing.MetricsTable.read(root)
            .disagreements("all-in-one with caches", exported));
  }
}
