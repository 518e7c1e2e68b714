package dev.knotless.run.events;

import dev.knotless.runner.engine.MeteredReports;
import dev.knotless.runner.schedule.RunClass;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;

/**
 * Exports what {@link MeteredReports} tells of each run: {@code knotless_run_runs_ended_total} by
 * outcome, kind and class, and the histograms {@code knotless_run_runs_queue_wait_seconds} (by kind
 * and class) and {@code knotless_run_runs_duration_seconds} (by outcome, kind and class). Every
 * ended counter is registered at zero up front, so a rate over it never starts from nothing.
 */
public final class RunMetrics implements MeteredReports.Meter {
  /** The counter of runs ended. */
  public static final String ENDED = "knotless.run.runs.ended";

  /** The timer of queue waits, filed to started. */
  public static final String QUEUE_WAIT = "knotless.run.runs.queue.wait";

  /** The timer of runs' durations, started to ended. */
  public static final String DURATION = "knotless.run.runs.duration";

  private final MeterRegistry registry;

  public RunMetrics(MeterRegistry registry) {
    this.registry = registry;
    for (String outcome : MeteredReports.OUTCOMES) {
      for (String kind : MeteredReports.KINDS) {
        for (RunClass c : RunClass.values()) {
          ended(kind, c.tag(), outcome);
        }
      }
    }
  }

  @Override
  public void started(String kind, String runClass, Duration queueWait) {
    Histograms.seconds(QUEUE_WAIT, "from a run's check filed to its run started")
        .tag("kind", kind)
        .tag("class", runClass)
        .register(registry)
        .record(queueWait);
  }

  @Override
  public void ended(String kind, String runClass, String outcome, Duration ran) {
    ended(kind, runClass, outcome).increment();
    if (ran != null) {
      Histograms.seconds(DURATION, "from a run's start to its end")
          .tag("kind", kind)
          .tag("class", runClass)
          .tag("outcome", outcome)
          .register(registry)
          .record(ran);
    }
  }

  private Counter ended(String kind, String runClass, String outcome) {
    return Counter.builder(ENDED)
        .description("runs ended, by outcome, kind and class")
        .tag("kind", kind)
        .tag("class", runClass)
        .tag("outcome", outcome)
        .register(registry);
  }
}
