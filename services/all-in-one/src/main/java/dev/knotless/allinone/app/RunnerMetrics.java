package dev.knotless.allinone.app;

import dev.knotless.runner.engine.Runner;
import dev.knotless.runner.exec.cache.CacheFigures;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.WaitReason;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Exports the runner's queue as {@code knotless.run.runs.*} gauges, by class and reason only, and
 * what its caches did as {@code knotless.run.cache.*} counters, and what they hold as gauges.
 */
@ApplicationScoped
public class RunnerMetrics {

  private final MeterRegistry registry;

  public RunnerMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Where the runner tells how each run waited and ended: the services' run metrics. */
  dev.knotless.runner.engine.MeteredReports.Meter runs() {
    return new dev.knotless.run.events.RunMetrics(registry);
  }

  void watch(Runner runner) {
    for (RunClass c : RunClass.values()) {
      for (WaitReason r : WaitReason.values()) {
        Gauge.builder("knotless.run.runs.waiting", runner, x -> count(x.waiting(), c, r))
            .description("Runs waiting for a job, by class and by what they wait for")
            .tag("class", c.name().toLowerCase())
            .tag("reason", r.name().toLowerCase())
            .register(registry);
      }
    }
    Gauge.builder("knotless.run.runs.running", runner, Runner::running)
        .description("Runs holding a job")
        .register(registry);
    runner.cacheFigures().ifPresent(f -> watchCaches(f::snapshot));
    runner.cacheStore().ifPresent(c -> watchCacheSizes(c::bases, c::kept));
  }

  /**
   * Exports the caches' current bases and kept layers, how many and their bytes, as {@code
   * knotless.run.cache.bases*} and {@code knotless.run.cache.kept*} gauges.
   */
  void watchCacheSizes(Supplier<CacheStore.Amount> bases, Supplier<CacheStore.Amount> kept) {
    Gauge.builder("knotless.run.cache.bases", bases, b -> b.get().count())
        .description("Cache bases kept, each a repository's workflow's path")
        .register(registry);
    Gauge.builder("knotless.run.cache.bases.bytes", bases, b -> b.get().bytes())
        .description("Bytes of the files in the caches' current bases")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("knotless.run.cache.kept", kept, k -> k.get().count())
        .description("Passes whose cache layers are kept for the push that lands them")
        .register(registry);
    Gauge.builder("knotless.run.cache.kept.bytes", kept, k -> k.get().bytes())
        .description("Bytes of the files in the kept cache layers")
        .baseUnit("bytes")
        .register(registry);
  }

  /** Exports what the caches did as {@code knotless.run.cache.*} counters. */
  void watchCaches(Supplier<CacheFigures.Snapshot> figures) {
    counter(
        "knotless.run.cache.hits",
        "Cache paths opened over a base holding files",
        figures,
        CacheFigures.Snapshot::hits);
    counter(
        "knotless.run.cache.misses",
        "Cache paths opened over an empty base, or read apart",
        figures,
        CacheFigures.Snapshot::misses);
    counter(
        "knotless.run.cache.promotions",
        "Upper layers made a base's next generation",
        figures,
        CacheFigures.Snapshot::promotions);
    counter(
        "knotless.run.cache.promoted.bytes",
        "Bytes of files promotions moved into bases",
        figures,
        CacheFigures.Snapshot::bytesPromoted);
    counter(
        "knotless.run.cache.not.promoted",
        "Passing runs' layers not made current (a newer base, over --cache-max, an error)",
        figures,
        CacheFigures.Snapshot::notPromoted);
    counter(
        "knotless.run.cache.shed.bases",
        "Bases removed below the disk floor",
        figures,
        CacheFigures.Snapshot::basesShed);
    counter(
        "knotless.run.cache.shed.bytes",
        "Bytes the bases shed at the disk floor took",
        figures,
        CacheFigures.Snapshot::bytesShed);
    counter(
        "knotless.run.cache.kept.layers",
        "Upper layers trusted pulls' and batches' passes kept for the push that lands them",
        figures,
        CacheFigures.Snapshot::layersKept);
    counter(
        "knotless.run.cache.shed.kept",
        "Passes' kept layers removed below the disk floor",
        figures,
        CacheFigures.Snapshot::keptShed);
    FunctionCounter.builder(
            "knotless.run.cache.floor.wait.seconds",
            figures,
            f -> f.get().floorWaitMillis() / 1000.0)
        .description("Time runs waited for room at the disk floor, all together")
        .register(registry);
  }

  private void counter(
      String name,
      String help,
      Supplier<CacheFigures.Snapshot> figures,
      ToLongFunction<CacheFigures.Snapshot> value) {
    FunctionCounter.builder(name, figures, f -> value.applyAsLong(f.get()))
        .description(help)
        .register(registry);
  }

  private static double count(Map<RunClass, Map<WaitReason, Integer>> m, RunClass c, WaitReason r) {
    return m.getOrDefault(c, Map.of()).getOrDefault(r, 0);
  }
}
