package dev.knotless.runner.engine;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.cli.RunnerOptions;
import dev.knotless.runner.cli.StateFlags;
import dev.knotless.runner.doorbell.DoorClock;
import dev.knotless.runner.doorbell.DoorMatcher;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.Doors;
import dev.knotless.runner.doorbell.FirehoseSource;
import dev.knotless.runner.doorbell.JetstreamSource;
import dev.knotless.runner.doorbell.PullDoors;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.SourceTimings;
import dev.knotless.runner.doorbell.WebSocketSource;
import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.filing.RetryingWrites;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.plan.AskedLedger;
import dev.knotless.runner.repopass.PassExtras;
import dev.knotless.runner.repopass.RepoPass;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.StorageCache;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * knotless-run all-in-one: one process that watches repositories, reconciles them as doors ring,
 * runs what is due on its executor (docker or shell) and files the checks. {@link #start} logs in,
 * reads each watched repository, ends the checks an earlier run of this account left unfinished,
 * opens the doors and starts listening; {@link #stop()} is the four-step stop. Thread-safe.
 */
public final class Runner implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Runner.class);
  private static final Duration SLOW_PASS = Duration.ofMinutes(5);
  // How often held-back minutes records are looked at: they are due five minutes after the last
  // write, so this is how late one may go out.
  private static final Duration MINUTES_POLL = Duration.ofSeconds(10);

  private final RunnerOptions options;
  private final Clock clock;
  private final StateStore state;
  private final Jobs jobs;
  private final MinutesWriter minutes;
  private final Doors doors;
  private final WebSocketSource source;
  private final ExecutorService passThreads;
  private final ScheduledExecutorService timers;
  private final WatchList watched;
  private volatile dev.knotless.runner.pass.PrivateWatch privates;

  private final RepoPass pass;
  private final Object passLock = new Object();
  private int passesFiling;
  private volatile boolean stopping;
  private volatile AskedLedger asked = new AskedLedger();
  private volatile dev.knotless.runner.pass.PassTrace trace =
      dev.knotless.runner.pass.PassTrace.NONE;

  private Executor executor;

  /** What the docker executor's caches did, when it keeps any. */
  public java.util.Optional<dev.knotless.runner.exec.cache.CacheFigures> cacheFigures() {
    return executor instanceof dev.knotless.runner.exec.docker.DockerExecutor d
        ? d.cacheFigures()
        : java.util.Optional.empty();
  }

  /** The docker executor's caches, when it keeps any: their bases' and kept layers' sizes. */
  public java.util.Optional<dev.knotless.runner.exec.cache.CacheStore> cacheStore() {
    return executor instanceof dev.knotless.runner.exec.docker.DockerExecutor d
        ? java.util.Optional.ofNullable(d.cacheStore())
        : java.util.Optional.empty();
  }

  private final DoorMatcher matcher;
  private volatile dev.knotless.runner.discover.Discoverer discoverer;
  private volatile dev.knotless.runner.mergequeue.QueueNotice notice;
  private volatile dev.knotless.runner.liveoutput.LiveOutput live;
  private dev.knotless.runner.engine.SealedStart sealed;

  private Runner(
      RunnerOptions options,
      Clock clock,
      StateStore state,
      Jobs jobs,
      MinutesWriter minutes,
      RepoPass pass,
      List<Watched> repos,
      ScheduledExecutorService timers) {
    this.options = options;
    this.clock = clock;
    this.state = state;
    this.jobs = jobs;
    this.minutes = minutes;
    this.pass = pass;
    this.timers = timers;
    this.passThreads = Executors.newFixedThreadPool(4, NamedThreads.of("knotless-pass"));
    DoorClock doorClock = DoorClock.of(timers);
    this.doors = new Doors(this::runPass, passThreads, doorClock, options.sweep());
    // Pulls, their states and the queue ring as they do in the ingester: one place decides.
    DoorMatcher matcher = new PullDoors(options.pulls(), options.queue()).addTo(new DoorMatcher());
    this.matcher = matcher;
    this.watched = new WatchList(repos, matcher, doors, () -> stopping);
    // An event's ring is where a traced push's way to running begins.
    dev.knotless.runner.doorbell.DoorbellSink rings =
        new dev.knotless.runner.doorbell.DoorbellSink() {
          @Override
          public void ring(RepoId repo, Doorbell reason) {
            trace.now(dev.knotless.runner.pass.PassTrace.Stage.FRAME, repo.toString());
            doors.ring(repo, reason);
          }

          @Override
          public void ringAll(Doorbell reason) {
            doors.ringAll(reason);
          }
        };
    this.source =
        options.firehose() != null
            ? new FirehoseSource(
                options.firehose(), matcher, rings, doorClock, SourceTimings.defaults())
            : new JetstreamSource(
                options.jetstream(), matcher, rings, doorClock, SourceTimings.defaults());
  }

  /**
   * Logs in, reads every repository named, ends stale checks and starts listening.
   *
   * @throws IOException when the state cannot be opened, the runner cannot log in, or it can read
   *     none of the repositories
   */
  public static Runner start(RunnerOptions o, Map<String, String> env) throws IOException {
    return start(o, env, MeteredReports.Meter.NONE);
  }

  /** As {@link #start(RunnerOptions, Map)}, telling {@code runs} how each run waited and ended. */
  public static Runner start(RunnerOptions o, Map<String, String> env, MeteredReports.Meter runs)
      throws IOException {
    Clock clock = Clock.systemUTC();
    // The state first: a state database that cannot be reached stops the start before any login.
    StateStore state = StateFlags.open(o, env);
    PdsAccess access = PdsAccess.login(env, clock);
    XrpcClient runnerClient = access.runner();
    var sealed = dev.knotless.runner.engine.SealedStart.begin(o, runnerClient, clock);
    StorageCache cache = access.cache();
    RetryingWrites writes = new RetryingWrites(runnerClient);
    CheckFiler filer = new CheckFiler(writes);
    var privates = PrivateWiring.begin(env, access, filer);
    StartReads.Started started = StartReads.readAll(o, access, filer, clock);
    List<Watched> repos = started.repos();

    var self = new java.util.concurrent.atomic.AtomicReference<Runner>();
    RunnerParts parts =
        RunnerParts.wire(
            o,
            env,
            clock,
            state,
            access,
            sealed,
            writes,
            filer,
            key -> ringing(self.get(), key),
            runs);
    Executor executor = parts.executor();
    Jobs jobs = parts.jobs();
    MinutesWriter minutes = parts.minutes();
    var live = parts.live();
    AskedLedger asked = parts.asked();
    PassExtras extras = parts.extras();
    RepoPass pass = parts.pass();
    if (extras.pruner() != null) {
      started.withoutChecks().forEach(k -> extras.pruner().nothingToPrune(k, clock.instant()));
    }
    String runnerDid = runnerClient.did();
    ScheduledExecutorService timers =
        Executors.newScheduledThreadPool(2, NamedThreads.of("knotless-timer"));
    Runner r = new Runner(o, clock, state, jobs, minutes, pass, repos, timers);
    self.set(r);
    if (extras.pulls() != null) {
      // A push to a fork with an open pull here rings this repository's door.
      extras.pulls().followingHeads(r.matcher::followPullHeads);
    }
    if (extras.queue() != null) {
      r.notice = extras.queue().notice();
    }
    if (o.discover()) {
      r.discoverer =
          DiscoverWiring.begin(
              o.appview(), access, state, runnerDid, r.watched, pass, r.matcher, privates);
    }
    r.asked = asked;
    r.executor = executor;
    r.live = live;
    r.sealed = sealed;
    r.listen();
    if (r.discoverer != null) {
      InviteWiring.reading(timers, o.sweep(), o.appview(), access, state, r.discoverer);
    }
    r.privates = privates;
    PrivateWiring.polling(
        timers,
        o.poll(),
        privates,
        o.appview(),
        runnerClient,
        repos.stream()
            .filter(Watched::privateRepo)
            .map(Watched::id)
            .collect(java.util.stream.Collectors.toSet()),
        id -> r.doors.ring(id, Doorbell.frame("com.atproto.space.listRepos")));
    return r;
  }

  /**
   * Has each push's way to a running check tell {@code trace} when it reaches each stage, from the
   * event's ring to the check filed running (a benchmark's timings).
   */
  public void tracing(dev.knotless.runner.pass.PassTrace trace) {
    this.trace = trace;
    pass.tracing(trace);
    jobs.tracing(trace);
  }

  /** A batch's run was filed as ended: its repository's pass reads how the batch went. */
  private static void ringing(Runner r, String stateKey) {
    if (r != null) {
      r.watched.ringAsked(stateKey);
    }
  }

  private void forgetQueue(RepoId id) {
    if (notice != null) {
      notice.forget(id);
    }
  }

  private void listen() {
    timers.scheduleWithFixedDelay(
        () -> jobs.minutesDue().forEach(minutes::write),
        MINUTES_POLL.toSeconds(),
        MINUTES_POLL.toSeconds(),
        java.util.concurrent.TimeUnit.SECONDS);
    doors.startSweeping();
    // A sweep also removes what runs left (never a live run's), as a start did.
    timers.scheduleWithFixedDelay(
        executor::removeLeftovers,
        options.sweep().toSeconds(),
        options.sweep().toSeconds(),
        java.util.concurrent.TimeUnit.SECONDS);
    // A key a rotation put first while this runner ran is published within a sweep.
    timers.scheduleWithFixedDelay(
        sealed::republish,
        options.sweep().toSeconds(),
        options.sweep().toSeconds(),
        java.util.concurrent.TimeUnit.SECONDS);
    if (discoverer != null) {
      // What was found before is watched before the appview is asked, which may be down.
      discoverer.fromState();
      timers.scheduleWithFixedDelay(
          discoverer::sweep, 0, options.sweep().toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    }
    if (notice != null) {
      QueueWiring.noticing(notice, timers, options.notice(), id -> doors.ring(id, Doorbell.NOTICE));
    }
    source.start();
    // The first pass of every repository; a connection rings every door again.
    doors.ringAll(Doorbell.connect("start"));
  }

  /**
   * One pass, as the doors call it. The doors number passes and log their end and duration; this
   * adds the label to the log context and reports the stage of a pass still going after five
   * minutes, every five minutes.
   */
  private void runPass(RepoId id, Set<Doorbell> reasons) throws Exception {
    Watched w = watched.get(id);
    if (w == null || stopping) {
      return;
    }
    Instant started = clock.instant();
    String[] stage = {"starting"};
    String passNo = MDC.get("pass");
    MDC.put("repo", w.label());
    var slow =
        timers.scheduleAtFixedRate(
            () ->
                LOG.warn(
                    "{}: pass #{} still going after {} s: {}",
                    w.label(),
                    passNo,
                    Duration.between(started, clock.instant()).toSeconds(),
                    stage[0]),
            SLOW_PASS.toSeconds(),
            SLOW_PASS.toSeconds(),
            java.util.concurrent.TimeUnit.SECONDS);
    synchronized (passLock) {
      passesFiling++;
    }
    try {
      boolean pushed = reasons.stream().anyMatch(r -> r instanceof Doorbell.Frame);
      RepoPass.Outcome outcome = pass.run(w, s -> stage[0] = s, pushed);
      if (outcome == RepoPass.Outcome.DELETED) {
        LOG.warn("{}: the repository was deleted; no longer watching it", w.label());
        if (privates != null) {
          privates.forget(id);
        }
        watched.drop(id, false);
        forgetQueue(id);
      } else if (outcome == RepoPass.Outcome.LEFT || outcome == RepoPass.Outcome.RENAMED) {
        if (outcome == RepoPass.Outcome.RENAMED && discoverer.refind(w)) {
          return;
        }
        // What it was running finishes; its door and what rings it go.
        if (privates != null) {
          privates.forget(id);
        }
        watched.drop(id, true);
        if (discoverer != null) {
          // A private repository left was named on the command line, not discovered.
          discoverer.forget(id);
        }
        forgetQueue(id);
      }
    } finally {
      slow.cancel(false);
      synchronized (passLock) {
        passesFiling--;
        passLock.notifyAll();
      }
    }
  }

  /**
   * The four-step stop: wait for passes that are filing and stop listening; cancel runs asked for
   * by name; wait up to --stop-wait for the rest; cancel what is still going and wait for it. Runs
   * that never started are filed cancelled and recorded as dropped, to run again at the next start
   * if their ref has not moved, except those at the commit of a running deploy (superseded:
   * finish), which may still start while it runs and are dropped only once it ends.
   */
  public void stop() throws InterruptedException {
    if (stopping) {
      return;
    }
    stopping = true;
    LOG.info("stopping: waiting for passes that are filing");
    source.close();
    doors.close();
    synchronized (passLock) {
      while (passesFiling > 0) {
        passLock.wait(1000);
      }
    }
    // The scheduler decides what the stop keeps: a running deploy keeps its commit's other runs.
    jobs.stop(RunRecords.keptAtStop(state, asked));
    LOG.info("stopping: waiting up to {} s for running runs", options.stopWait().toSeconds());
    if (!jobs.awaitIdle(options.stopWait())) {
      LOG.warn("stopping: --stop-wait is up; cancelling what still runs");
      jobs.cancelRunning("the runner stopped (--stop-wait was up)");
      jobs.awaitIdle(Duration.ofMinutes(2));
    }
    jobs.close();
    passThreads.shutdownNow();
    timers.shutdownNow();
    dev.knotless.runner.repopass.RepoPass.stopTidying();
    if (executor instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        LOG.warn("stopping: could not close the {} executor: {}", executor.name(), e.toString());
      }
    }
    minutes.close();
    if (live != null) {
      live.close();
    }
    if (discoverer != null) {
      discoverer.close();
    }
    LOG.info("stopped");
  }

  /** Waiting runs by class and by why they wait, for metrics. */
  public Map<
          dev.knotless.runner.schedule.RunClass,
          Map<dev.knotless.runner.schedule.WaitReason, Integer>>
      waiting() {
    return jobs.inspect(s -> s.waitingCounts(clock.instant()));
  }

  /** How many runs hold a job now. */
  public int running() {
    return jobs.counts()[1];
  }

  /** Whether nothing waits or runs. */
  public boolean idle() {
    return jobs.idle();
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
