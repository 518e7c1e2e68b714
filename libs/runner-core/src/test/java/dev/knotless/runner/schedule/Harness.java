package dev.knotless.runner.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A scheduler with a hand-moved clock, speaking in run ids. */
final class Harness {
  static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
  static final String RUNNER = "did:plc:runner";

  final Scheduler scheduler;
  final UsageLedger usage = new UsageLedger();
  Instant now = T0;

  Harness(SchedulerConfig config) {
    this.scheduler = new Scheduler(config, usage);
  }

  static Harness jobs(int jobs) {
    return new Harness(SchedulerConfig.defaults(jobs, RUNNER));
  }

  List<Decision> submit(Runs runs) {
    return scheduler.submit(runs.build(), now);
  }

  /** Submits and asserts nothing was cancelled. */
  void submitAll(Runs... runs) {
    for (Runs r : runs) {
      for (Decision d : submit(r)) {
        if (d instanceof Decision.Cancel c) {
          throw new AssertionError("unexpected cancel " + c);
        }
      }
    }
  }

  List<String> admit() {
    List<String> ids = new ArrayList<>();
    for (Admission a : scheduler.admit(now)) {
      ids.add(a.runId());
    }
    return ids;
  }

  RunEnded finish(String runId, Duration steps) {
    return scheduler.finished(runId, steps.toMillis(), now);
  }

  /** Finishes a run and files its check, as the runner does for a run that ended. */
  void end(String runId) {
    scheduler.finished(runId, 1_000, now);
    scheduler.fileEnded(runId);
  }

  /** Starts runs one job at a time, ending each, and returns the order they started in. */
  List<String> drainOneAtATime() {
    List<String> order = new ArrayList<>();
    for (List<String> started = admit(); !started.isEmpty(); started = admit()) {
      for (String id : started) {
        order.add(id);
        end(id);
      }
    }
    return order;
  }

  WaitReason reasonOf(String runId) {
    return scheduler.waiting(now).stream()
        .filter(w -> w.request().runId().equals(runId))
        .findFirst()
        .orElseThrow(() -> new AssertionError(runId + " is not waiting"))
        .reason();
  }
}
