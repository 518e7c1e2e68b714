package dev.knotless.runner.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.workflow.Superseded;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Ranking and admitting stay fast with 100,000 runs waiting across 1,000 owners. */
class SchedulerScaleTest {

  private static final int RUNS = 100_000;
  private static final int OWNERS = 1_000;
  private static final int CYCLES = 2_000;

  @Test
  void admittingFromAHundredThousandWaitingRunsTakesMicrosecondsNotSeconds() {
    Instant now = Instant.parse("2026-11-29T12:00:00Z");
    SchedulerConfig config = SchedulerConfig.defaults(16, "did:plc:runner").withCaps(8, 2);
    Scheduler scheduler = new Scheduler(config, new UsageLedger());
    Random random = new Random(3);
    long t0 = System.nanoTime();
    for (int i = 0; i < RUNS; i++) {
      // A skewed crowd: a tenth of the owners file most of the runs, as bursts do.
      int owner = random.nextInt(10) < 7 ? random.nextInt(OWNERS / 10) : random.nextInt(OWNERS);
      RunClass cls = RunClass.values()[random.nextInt(4)];
      scheduler.submit(
          new RunRequest(
              "r" + i,
              "did:plc:o" + owner,
              "did:plc:o" + owner + "/repo",
              "at://pull/" + i,
              SubjectKind.PULL,
              "ci",
              "h" + i,
              cls,
              Superseded.CANCEL,
              false),
          now);
    }
    long submitted = System.nanoTime();
    List<Admission> running = new java.util.ArrayList<>(scheduler.admit(now));
    long admitNanos = 0;
    int started = running.size();
    for (int c = 0; c < CYCLES; c++) {
      Admission done = running.remove(0);
      scheduler.finished(done.runId(), 1000, now);
      long a = System.nanoTime();
      List<Admission> next = scheduler.admit(now);
      admitNanos += System.nanoTime() - a;
      running.addAll(next);
      started += next.size();
    }
    long w = System.nanoTime();
    int waiting = scheduler.waiting(now).size();
    long waitingNanos = System.nanoTime() - w;
    System.out.printf(
        Locale.ROOT,
        "submit %d runs: %.0f ms; admit after a finish: %.1f us average over %d; "
            + "waiting() with reasons over %d: %.0f ms%n",
        RUNS,
        (submitted - t0) / 1e6,
        admitNanos / 1e3 / CYCLES,
        CYCLES,
        waiting,
        waitingNanos / 1e6);
    assertEquals(RUNS - started, waiting);
    assertEquals(16, scheduler.runningCount(), "every job is kept busy");
    assertTrue(admitNanos / CYCLES < 5_000_000, "admit averaged " + admitNanos / CYCLES + " ns");
  }
}
