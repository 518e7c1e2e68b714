package dev.knotless.run.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.engine.Checks;
import dev.knotless.runner.engine.MeteredReports;
import dev.knotless.runner.engine.RunReports;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.plan.PlannedRun;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the runs' metrics say of a run that waited, ran and failed, and of one never started. */
class RunMetricsTest {
  private static final RunReports NOTHING =
      new RunReports() {
        @Override
        public void started(PlannedRun run, CheckRecord running) {}

        @Override
        public void ended(PlannedRun run, CheckRecord running, RunResult result, String fault) {}

        @Override
        public void cancelledUnstarted(PlannedRun run, String why) {}
      };

  @Test
  void aRunsQueueWaitDurationAndOutcomeAreRecordedByKindAndClass() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PlannedRun run = EventReportsTest.run(); // filed 10:00:00, a push asked for by name
    Instant started = run.check().createdAt().plusSeconds(12);
    Clock ended = Clock.fixed(started.plusSeconds(90), ZoneOffset.UTC);
    MeteredReports reports = new MeteredReports(NOTHING, new RunMetrics(registry), ended);
    CheckRecord running = Checks.started(run.check(), started);

    reports.started(run, running);
    reports.ended(
        run,
        running,
        new RunResult(List.of(), new RunOutcome.Failed("test"), new byte[0], List.of()),
        null);
    reports.ended(run, running, null, "no pod");

    var wait =
        registry
            .get(RunMetrics.QUEUE_WAIT)
            .tag("kind", "push")
            .tag("class", "asked")
            .timer()
            .takeSnapshot();
    assertEquals(1, wait.count());
    assertEquals(12.0, wait.total(TimeUnit.SECONDS), 1e-9);
    var ran = registry.get(RunMetrics.DURATION).tag("outcome", "failure").timer();
    assertEquals(Duration.ofSeconds(90).toNanos(), (long) ran.totalTime(TimeUnit.NANOSECONDS));
    assertEquals(1.0, ended(registry, "failure"));
    assertEquals(1.0, ended(registry, "error"), "a run that could not start ends as an error");
    assertEquals(0, registry.find(RunMetrics.DURATION).tag("outcome", "error").timers().size());
    assertEquals(0.0, ended(registry, "success"), "every series is there from the start");
  }

  private static double ended(SimpleMeterRegistry registry, String outcome) {
    return registry
        .get(RunMetrics.ENDED)
        .tag("kind", "push")
        .tag("class", "asked")
        .tag("outcome", outcome)
        .counter()
        .count();
  }
}
