package dev.knotless.bench;

import dev.knotless.runner.schedule.Admission;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.Scheduler;
import dev.knotless.runner.schedule.SchedulerConfig;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.schedule.UsageLedger;
import dev.knotless.runner.workflow.Superseded;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * How many scheduling decisions one thread makes per second with 100,000 runs waiting across 1,000
 * owners. A decision is one run admitted: the scheduler ranks the waiting runs (class, owner turn,
 * order filed), skips what is held back (turns, owner caps, allowances, the pull-jobs cap) and
 * hands out the free job. Each cycle finishes the oldest running run, files a new one in its place,
 * so the queue stays at 100,000, and admits; a decision's cost is those calls together. Rounds are
 * measured in this thread's CPU time, which is what one core gives it, so a busy machine slows the
 * bench but hardly moves the figures.
 *
 * <p>Usage: {@code bin/bench Scheduler [seconds per round, default 3] [rounds, default 5]}. Prints
 * one row per scenario: the median of the rounds after a warm-up round of the same length.
 */
public final class SchedulerBench {

  private static final int WAITING = 100_000;
  private static final int OWNERS = 1_000;
  private static final int JOBS = 16;
  private static final Instant START = Instant.parse("2026-11-29T12:00:00Z");

  /** One workload: the flags, and whether half the owners start past their allowance. */
  private record Scenario(String name, SchedulerConfig config, boolean halfPastAllowance) {}

  /**
   * One round's figures, per second of this thread's CPU time, so that other processes on a busy
   * machine take the thread's turns on the core but not its figures; the wall-clock rate is kept
   * beside it to show how busy the machine was.
   */
  private record Figures(
      double decisionsPerSecond,
      double wallDecisionsPerSecond,
      double fillPerSecond,
      double waitingMillis) {}

  private static final java.lang.management.ThreadMXBean CPU =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private SchedulerBench() {}

  public static void main(String[] args) {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    SchedulerConfig base = SchedulerConfig.defaults(JOBS, "did:plc:runner");
    List<Scenario> scenarios =
        List.of(
            new Scenario("defaults (16 jobs, 8 pull jobs)", base, false),
            new Scenario("--owner-jobs 1", base.withCaps(8, 1), false),
            new Scenario(
                "half the owners past --allowance",
                base.withAllowances(60, SchedulerConfig.UNLIMITED, Set.of()),
                true));
    System.out.printf(
        Locale.ROOT,
        "SchedulerBench: %,d waiting runs, %,d owners, one thread; %d rounds of %.1f s after one"
            + " warm-up round; load average at start: %s%n%n",
        WAITING,
        OWNERS,
        rounds,
        seconds,
        dev.knotless.bench.Figures.loadAverage());
    System.out.printf(
        Locale.ROOT,
        "%-34s %12s %12s %10s %14s %13s%n",
        "scenario",
        "decisions/s",
        "us/decision",
        "wall /s",
        "files/s (fill)",
        "waiting() ms");
    for (Scenario s : scenarios) {
      round(s, seconds); // warm-up: JIT and heap settle on this very workload
      Figures[] f = new Figures[rounds];
      for (int i = 0; i < rounds; i++) {
        f[i] = round(s, seconds);
      }
      double decisions = median(f, Figures::decisionsPerSecond);
      System.out.printf(
          Locale.ROOT,
          "%-34s %,12.0f %12.2f %,10.0f %,14.0f %13.1f%n",
          s.name(),
          decisions,
          1e6 / decisions,
          median(f, Figures::wallDecisionsPerSecond),
          median(f, Figures::fillPerSecond),
          median(f, Figures::waitingMillis));
    }
    System.out.printf(
        Locale.ROOT, "%nload average at end: %s%n", dev.knotless.bench.Figures.loadAverage());
  }

  /** Fills a fresh scheduler, then finishes, files and admits for {@code seconds}. */
  private static Figures round(Scenario s, double seconds) {
    UsageLedger usage = new UsageLedger();
    if (s.halfPastAllowance()) {
      for (int o = 0; o < OWNERS; o += 2) {
        usage.add(owner(o), false, UsageLedger.day(START), 61 * 60_000L);
      }
    }
    Scheduler scheduler = new Scheduler(s.config(), usage);
    Random random = new Random(7);
    Instant now = START;
    long fillStart = CPU.getCurrentThreadCpuTime();
    for (int i = 0; i < WAITING; i++) {
      scheduler.submit(request(i, random), now);
    }
    double fillPerSecond = WAITING / ((CPU.getCurrentThreadCpuTime() - fillStart) / 1e9);

    ArrayDeque<Admission> running = new ArrayDeque<>(scheduler.admit(now));
    int next = WAITING;
    long decisions = 0;
    long budget = (long) (seconds * 1e9);
    long begin = System.nanoTime();
    long cpuBegin = CPU.getCurrentThreadCpuTime();
    long elapsed = 0;
    while (elapsed < budget) {
      // Time moves a second a cycle, so waits and allowances are dated as in a real day.
      now = now.plusSeconds(1);
      for (int k = 0; k < 64; k++) {
        Admission done = running.poll();
        if (done != null) {
          scheduler.finished(done.runId(), 30_000, now);
          scheduler.fileEnded(done.runId());
        }
        scheduler.submit(request(next++, random), now);
        List<Admission> admitted = scheduler.admit(now);
        running.addAll(admitted);
        decisions += admitted.size();
      }
      elapsed = CPU.getCurrentThreadCpuTime() - cpuBegin;
    }
    double wall = (System.nanoTime() - begin) / 1e9;
    long w = CPU.getCurrentThreadCpuTime();
    int waiting = scheduler.waiting(now).size();
    double waitingMillis = (CPU.getCurrentThreadCpuTime() - w) / 1e6;
    if (waiting < WAITING - JOBS - 64) {
      throw new IllegalStateException("the queue drained to " + waiting + ": the bench is wrong");
    }
    return new Figures(decisions / (elapsed / 1e9), decisions / wall, fillPerSecond, waitingMillis);
  }

  /**
   * A run as a busy day files them: a tenth of the owners file seven in ten runs, as bursts of
   * pulls do; a tenth are main's pushes, a few are asked for by name.
   */
  private static RunRequest request(int i, Random random) {
    int o = random.nextInt(10) < 7 ? random.nextInt(OWNERS / 10) : random.nextInt(OWNERS);
    int c = random.nextInt(100);
    RunClass runClass =
        c < 10 ? RunClass.MAIN : c < 80 ? RunClass.OTHER : c < 95 ? RunClass.LATER : RunClass.ASKED;
    return new RunRequest(
        "r" + i,
        owner(o),
        owner(o) + "/repo" + (i % 3),
        "at://pull/" + i,
        SubjectKind.PULL,
        "ci",
        "h" + i,
        runClass,
        Superseded.CANCEL,
        false);
  }

  private static String owner(int o) {
    return "did:plc:owner" + o;
  }

  private static double median(Figures[] f, java.util.function.ToDoubleFunction<Figures> field) {
    double[] v = Arrays.stream(f).mapToDouble(field).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
