package dev.knotless.allinone.app;

import dev.knotless.runner.engine.Runner;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.WaitReason;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/** Exports the runner's queue as {@code knotless.run.runs.*} gauges, by class and reason only. */
@ApplicationScoped
public class RunnerMetrics {

  private final MeterRegistry registry;

  public RunnerMetrics(MeterRegistry registry) {
    this.registry = registry;
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
  }

  private static double count(Map<RunClass, Map<WaitReason, Integer>> m, RunClass c, WaitReason r) {
    return m.getOrDefault(c, Map.of()).getOrDefault(r, 0);
  }
}
