package dev.knotless.runner.engine;

import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.pass.PassTrace;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.schedule.Admission;
import dev.knotless.runner.schedule.AdmissionGate;
import dev.knotless.runner.schedule.CancelReason;
import dev.knotless.runner.schedule.Decision;
import dev.knotless.runner.schedule.MinutesRecord;
import dev.knotless.runner.schedule.RunEnded;
import dev.knotless.runner.schedule.Scheduler;
import dev.knotless.runner.state.PassedRun;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job pool: takes the runs passes file, lets the {@link Scheduler} decide which start, runs
 * them on the executor (docker or shell), and tells {@link RunReports} of each as it starts and
 * ends (the all-in-one runner files checks, the distributed worker publishes run events).
 *
 * <p>The scheduler is only touched under this object's lock. A job is released as soon as its steps
 * end, before the log and the check are written, so a slow PDS holds no job. Thread-safe.
 */
public final class Jobs implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Jobs.class);

  private final Scheduler scheduler;
  private final Executor executor;
  private final RunReports reports;
  private final Clock clock;
  private final Consumer<RunEnded> onEnded;
  private final Consumer<MinutesRecord> minutes;
  private final WaitLog waitLog = new WaitLog();
  private volatile PassTrace trace = PassTrace.NONE;
  private final ExecutorService threads =
      Executors.newCachedThreadPool(NamedThreads.of("knotless-job"));
  private final Map<String, PlannedRun> waiting = new HashMap<>();
  private final Map<String, Running> running = new HashMap<>();
  private int filing;
  private boolean stopping;
  private StopDrops stopDrops;
  private AdmissionGate gate = AdmissionGate.ALONE;

  private record Running(
      PlannedRun run, RunCancellation cancellation, Instant startedAt, Admission admission) {}

  /**
   * @param reports hears of each run's start, progress and end
   * @param onEnded hears of each run's step time, for the state's usage
   * @param minutes takes an owner's public minutes record when the scheduler says to write it now;
   *     called outside this object's lock, so it must return quickly
   */
  public Jobs(
      Scheduler scheduler,
      Executor executor,
      RunReports reports,
      Clock clock,
      Consumer<RunEnded> onEnded,
      Consumer<MinutesRecord> minutes) {
    this.scheduler = scheduler;
    this.executor = executor;
    this.reports = reports;
    this.clock = clock;
    this.onEnded = onEnded;
    this.minutes = minutes;
  }

  /**
   * Admits through {@code gate} from now on: in a runner of several replicas, what other replicas'
   * runs hold then counts against each owner's cap. Call before the first submit.
   */
  public synchronized void useGate(AdmissionGate gate) {
    this.gate = gate;
  }

  /** The minutes records held back by the five-minute spacing that are due now, to write. */
  public synchronized List<MinutesRecord> minutesDue() {
    Instant now = clock.instant();
    return scheduler.minutesDue(now).stream()
        .map(owner -> scheduler.minutesRecord(owner, now))
        .toList();
  }

  /** Has each run tell {@code trace} when it has its job and when its check is filed running. */
  public void tracing(PassTrace trace) {
    this.trace = trace;
  }

  /** Hands a filed run to the scheduler; runs it superseded are cancelled. */
  public void submit(PlannedRun run) {
    List<Decision> decisions;
    synchronized (this) {
      if (stopping) {
        throw new IllegalStateException("the runner is stopping");
      }
      waiting.put(run.runId(), run);
      decisions = scheduler.submit(run.request(), clock.instant());
    }
    act(decisions);
    pump();
  }

  /** Cancels a waiting or running run, if it is still here. */
  public void cancel(String rkey, CancelReason reason) {
    List<Decision> d = new ArrayList<>();
    synchronized (this) {
      scheduler.cancel(rkey, reason).ifPresent(d::add);
    }
    act(d);
    pump();
  }

  /**
   * Cancels the runs filed under {@code checkKey}, waiting or running, if any are still here: for a
   * cancel that names the check rather than one run of it (another replica's newer commit).
   */
  public void cancelCheck(String checkKey, CancelReason reason) {
    List<String> ids = new ArrayList<>();
    synchronized (this) {
      waiting.values().stream()
          .filter(p -> p.rkey().equals(checkKey))
          .forEach(p -> ids.add(p.runId()));
      running.values().stream()
          .filter(r -> r.run().rkey().equals(checkKey))
          .forEach(r -> ids.add(r.run().runId()));
    }
    ids.forEach(id -> cancel(id, reason));
  }

  /**
   * Admits what may start now: for a caller whose runs wait on something that frees elsewhere (an
   * owner's job held by another replica), called from time to time.
   */
  public void admitWaiting() {
    pump();
  }

  /** How many runs wait and run now. */
  public synchronized int[] counts() {
    return new int[] {waiting.size(), running.size()};
  }

  /** Whether nothing waits, runs or is being filed. */
  public synchronized boolean idle() {
    return waiting.isEmpty() && running.isEmpty() && filing == 0;
  }

  /** The scheduler's view, for metrics: call only to read. */
  public synchronized <T> T inspect(java.util.function.Function<Scheduler, T> f) {
    return f.apply(scheduler);
  }

  private void act(List<Decision> decisions) {
    for (Decision d : decisions) {
      if (d instanceof Decision.Cancel c) {
        if (c.running()) {
          Running r;
          synchronized (this) {
            r = running.get(c.runId());
          }
          if (r != null) {
            LOG.info("{}: cancelling running {} ({})", r.run().label(), c.runId(), why(c.reason()));
            r.cancellation().cancel(why(c.reason()));
          }
        } else {
          PlannedRun p;
          StopDrops drops;
          synchronized (this) {
            p = waiting.remove(c.runId());
            drops = c.reason() == CancelReason.STOP ? stopDrops : null;
            filing++;
          }
          if (p != null && drops != null) {
            handOver(p, drops);
          } else if (p != null) {
            threads.execute(
                RunLogContext.around(p, () -> fileCancelledUnstarted(p, why(c.reason()))));
          } else {
            synchronized (this) {
              filing--;
            }
          }
        }
      } else if (d instanceof Decision.Kept k) {
        LOG.debug("{} holds its workflow's turn", k.runId());
      }
    }
  }

  /** Starts whatever the scheduler admits now. */
  private void pump() {
    List<Running> start = new ArrayList<>();
    List<String[]> waits = new ArrayList<>();
    synchronized (this) {
      Instant now = clock.instant();
      for (Admission a : gate.admit(elsewhere -> scheduler.admit(now, elsewhere))) {
        PlannedRun p = waiting.remove(a.runId());
        if (p == null) {
          LOG.error("the scheduler admitted {}, which this runner does not hold", a.runId());
          continue;
        }
        Running r = new Running(p, new RunCancellation(), clock.instant(), a);
        running.put(p.runId(), r);
        start.add(r);
        if (a.pastAllowance()) {
          LOG.info("{}: {} past its owner's allowance, waited {}", p.label(), p.rkey(), a.waited());
        }
      }
      for (WaitLog.Change c : waitLog.update(scheduler.waiting(now))) {
        PlannedRun p = waiting.get(c.run().request().runId());
        waits.add(
            new String[] {
              p == null ? c.run().request().repo() : p.label(),
              c.run().request().workflow(),
              c.run().request().subject(),
              WaitLog.why(c.reason())
            });
      }
    }
    // Once per run and reason: a queue that stays put logs nothing more.
    waits.forEach(w -> LOG.info("{}: {} on {} waits: {}", w[0], w[1], w[2], w[3]));
    for (Running r : start) {
      threads.execute(RunLogContext.around(r.run(), () -> runJob(r)));
    }
  }

  /**
   * {@code spec}, its caches' layers kept by the run's check if it passes, when its pass is kept
   * for a push at the same tree to take: the push then promotes them as its own run would.
   */
  static RunSpec keepingLayers(PlannedRun p, RunSpec spec) {
    PassedRun keep = p.keptPass();
    if (keep == null) {
      return spec;
    }
    return spec.withOption(
        spec.options()
            .get(CacheRequest.class, CacheRequest.NONE)
            .keptAs(new CacheRequest.KeptAs(keep.check(), keep.subject())));
  }

  private void runJob(Running r) {
    PlannedRun p = r.run();
    CheckRecord check = Checks.started(p.check(), r.startedAt());
    RunResult result = null;
    String fault = null;
    String withdrawn = null;
    try {
      withdrawn = p.prepare().elsewhere().orElse(null);
    } catch (RuntimeException e) {
      LOG.warn(
          "{}: {}: whether it ran elsewhere is not known: {}", p.label(), p.rkey(), e.getMessage());
    }
    try {
      // A run withdrawn runs nothing: the bookkeeping below frees its job as for one that ended.
      if (withdrawn == null) {
        trace.now(PassTrace.Stage.JOB, p.request().repo());
        reports.started(p, check);
        trace.now(PassTrace.Stage.RUNNING, p.request().repo());
        RunSpec spec = AdmittedSpec.apply(keepingLayers(p, p.prepare().prepare()), r.admission());
        LOG.info("{}: running {} at {}", p.label(), p.check().workflow(), p.check().commit());
        result =
            executor.run(spec, r.cancellation(), reports.listener(p), p.prepare().afterSteps());
      }
    } catch (PlannedRun.PrepareException | XrpcException | RuntimeException e) {
      fault = e.getMessage();
      LOG.warn("{}: run {} could not start: {}", p.label(), p.rkey(), fault);
    }
    long stepMillis = result == null ? 0 : Checks.stepMillis(result);
    RunEnded ended;
    MinutesRecord minutesNow = null;
    List<Decision> dropsNow = new ArrayList<>();
    synchronized (this) {
      running.remove(p.runId());
      filing++;
      ended = scheduler.finished(p.runId(), stepMillis, clock.instant());
      if (ended.writeMinutesNow()) {
        minutesNow = scheduler.minutesRecord(p.request().ownerDid(), clock.instant());
      }
      // A deploy that ended keeps its commit's waiting runs no more.
      dropsNow.addAll(scheduler.stopDrops());
    }
    act(dropsNow);
    onEnded.accept(ended);
    if (minutesNow != null) {
      minutes.accept(minutesNow);
    }
    pump(); // the job is free before the log and check are written
    try {
      if (withdrawn != null) {
        reports.withdrawn(p, withdrawn);
      } else {
        reports.ended(p, check, result, fault);
      }
    } finally {
      filed(p);
      pump();
    }
  }

  private void fileCancelledUnstarted(PlannedRun p, String why) {
    try {
      reports.cancelledUnstarted(p, why);
    } finally {
      filed(p);
    }
  }

  /**
   * The check of {@code p} is filed as ended. It hands on any turn it held, so the deploy waiting
   * behind it goes.
   */
  private void filed(PlannedRun p) {
    List<Decision> next = new ArrayList<>();
    synchronized (this) {
      filing--;
      scheduler.fileEnded(p.runId()).ifPresent(next::add);
    }
    act(next);
  }

  // ---- stopping -------------------------------------------------------------------------------

  /** Refuses new runs from now on. */
  public synchronized void stopTaking() {
    stopping = true;
  }

  /**
   * Begins the stop the scheduler decides (runner.md, "A stop"): refuses new runs, cancels the runs
   * asked for by name, waiting or running, and drops every waiting run except those at the commit
   * of a running superseded: finish run, which stay and may still start; as runs end, what no
   * running deploy keeps any more is dropped too. Each run cut off or dropped goes to {@code
   * drops}. Call {@link #awaitIdle} next, then {@link #cancelRunning} for what is still going.
   */
  public void stop(StopDrops drops) {
    List<Decision> decisions = new ArrayList<>();
    List<PlannedRun> askedRunning = new ArrayList<>();
    synchronized (this) {
      stopping = true;
      stopDrops = drops;
      for (Decision.Cancel c : scheduler.stop()) {
        decisions.add(c);
        Running r = running.get(c.runId());
        if (c.running() && r != null) {
          askedRunning.add(r.run());
        }
      }
    }
    askedRunning.forEach(drops::cutOff);
    act(decisions);
    pump();
  }

  /** A run the stop dropped before it started: filed cancelled or left, and recorded. */
  private void handOver(PlannedRun p, StopDrops drops) {
    try {
      if (drops.fileCancelled()) {
        reports.cancelledUnstarted(p, "the runner stopped before this run started");
      }
      drops.dropped(p);
    } finally {
      filed(p);
    }
  }

  /** Cancels every running run. */
  public void cancelRunning(String why) {
    List<Running> all;
    synchronized (this) {
      all = new ArrayList<>(running.values());
    }
    all.forEach(r -> r.cancellation().cancel(why));
  }

  /** Waits until nothing runs or is being filed, or the time is up; true if idle. */
  public boolean awaitIdle(Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (true) {
      synchronized (this) {
        if (running.isEmpty() && filing == 0) {
          return true;
        }
      }
      if (System.nanoTime() >= deadline) {
        return false;
      }
      Thread.sleep(50);
    }
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }

  static String why(CancelReason r) {
    return switch (r) {
      case SUPERSEDED -> "superseded by a newer commit";
      case ASKED_AGAIN -> "asked for again by name";
      case PULL_MOVED -> "its pull moved";
      case BATCH_DROPPED -> "its batch was dropped";
      case STOP -> "the runner stopped";
    };
  }
}
