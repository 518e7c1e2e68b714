package dev.knotless.run.scheduler.app;

import dev.knotless.run.events.EventReports;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.events.RunEventJson;
import dev.knotless.run.events.RunSpans;
import dev.knotless.run.events.TraceParent;
import dev.knotless.runner.engine.Jobs;
import dev.knotless.runner.engine.SealedStart;
import dev.knotless.runner.exec.ExecutorContext;
import dev.knotless.runner.exec.ExecutorKinds;
import dev.knotless.runner.exec.pod.PodApi;
import dev.knotless.runner.exec.pod.PodExecutor;
import dev.knotless.runner.exec.pod.PodObserver;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.filing.RetryingWrites;
import dev.knotless.runner.mergequeue.Takeover;
import dev.knotless.runner.pass.OrderPlanner;
import dev.knotless.runner.pass.PdsAccess;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.pass.SharedStepFiles;
import dev.knotless.runner.pass.WriteBack;
import dev.knotless.runner.plan.RunOrder;
import dev.knotless.runner.schedule.CancelReason;
import dev.knotless.runner.schedule.Scheduler;
import dev.knotless.runner.state.pg.PgRunQueue;
import dev.knotless.runner.state.pg.PgStateStore;
import dev.knotless.runtime.pods.PodKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;
import org.jboss.logging.Logger;

/**
 * The leader's work: queued runs, in their filing order, to libs/runner's {@link Jobs} (which ranks
 * them by the scheduling policy and runs each in a pod of its own through the {@link PodExecutor}),
 * progress out as run events for the check-writer (each run's outputs uploaded as it ends), and the
 * queue kept in step. On taking the lead it first offers the pods of runs already going to the
 * executor for adoption, then takes every queued run the last leader held, as {@link Takeover}
 * says: a run whose pod lives is followed in it, one that never started is run, and one that
 * started but whose pod is gone ends as an error. Each run held is a span ({@link RunSpans}) in the
 * trace its row names, carried on its events.
 */
@ApplicationScoped
public class PodRuns {
  private static final Logger LOG = Logger.getLogger(PodRuns.class);
  private static final List<String> PHASES =
      List.of("Pending", "Running", "Succeeded", "Failed", "Unknown");

  private final SchedulerConfig config;
  private final PgRunQueue queue;
  private final PgStateStore repoStates;
  private final KubernetesClient client;
  private final MeterRegistry registry;
  private final Clock clock = Clock.systemUTC();
  private final Set<String> taken = ConcurrentHashMap.newKeySet();
  private final Timer podStart;
  private final Timer imagePull;
  private final Counter pullFailures;
  private final RunSpans spans;
  private volatile boolean taking = true;
  private volatile String me;
  private volatile Jobs jobs;
  private volatile PodExecutor executor;
  private volatile OrderPlanner planner;
  private volatile SealedStart sealed = SealedStart.none();
  private volatile PodUsage usage;
  private ScheduledExecutorService loops;

  @Inject io.agroal.api.AgroalDataSource db;

  @Inject
  @Channel("run-events")
  @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 65_536)
  Emitter<String> events;

  public PodRuns(
      SchedulerConfig config,
      PgRunQueue queue,
      PgStateStore repoStates,
      KubernetesClient client,
      MeterRegistry registry,
      io.opentelemetry.api.trace.Tracer tracer) {
    this.config = config;
    this.spans = new RunSpans(tracer);
    this.queue = queue;
    this.repoStates = repoStates;
    this.client = client;
    this.registry = registry;
    for (String p : PHASES) {
      // Read off the watch at each scrape: a phase change shows without waiting for a sweep.
      Gauge.builder("knotless.run.pods", this, runs -> runs.inPhase(p))
          .description("the runner's pods by phase, as the API server's watch tells them")
          .tag("phase", p)
          .register(registry);
    }
    this.podStart =
        dev.knotless.run.events.Histograms.seconds(
                "knotless.run.pod.start", "from a run's pod being made to its running")
            .register(registry);
    this.imagePull =
        dev.knotless.run.events.Histograms.seconds(
                "knotless.run.pod.image.pull",
                "how long a run pod's image took to pull, as the kubelet's Pulled event says;"
                    + " nothing for an image already on the node")
            .register(registry);
    this.pullFailures =
        Counter.builder("knotless.run.pod.image.pull.failures")
            .description("runs failed because their pod's image could not be had")
            .register(registry);
  }

  /**
   * Logs in and makes the executor and the jobs, so that a standby that comes to lead only has to
   * adopt and poll. Called once, at start, whether this one leads or not.
   */
  public synchronized void prepare() {
    // The pod kind with this service's client in place of one configured from the environment.
    // Its settings come first: a wrong run-pod overlay stops the start before anything else.
    PodKind pods =
        ExecutorKinds.installed().with(new PodKind(client)).kind(PodKind.NAME, PodKind.class);
    PodKind.Settings podSettings;
    try {
      podSettings = pods.settings(PodKindConfig.of(config));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("the run pods' settings: " + e.getMessage(), e);
    }
    if (!podSettings.pod().overlay().isEmpty()) {
      LOG.infof("run pods get the operator's overlay %s", podSettings.pod().overlay());
    }
    Map<String, String> env = new HashMap<>(System.getenv());
    config.identifier().ifPresent(v -> env.put("KNOTLESS_IDENTIFIER", v));
    config.password().ifPresent(v -> env.put("KNOTLESS_PASSWORD", v));
    config.plcUrl().ifPresent(v -> env.put("KNOTLESS_PLC_URL", v));
    config.handleResolver().ifPresent(v -> env.put("KNOTLESS_HANDLE_RESOLVER", v));
    config.cacheDir().ifPresent(v -> env.put("KNOTLESS_CACHE_DIR", v));
    PdsAccess access;
    try {
      Files.createDirectories(config.work());
      // With no password, the mounted OAuth session is shared with the other services' replicas
      // through the database (oauth_session), refreshed under its row lock.
      access =
          PdsAccess.login(
              env,
              clock,
              new dev.knotless.run.events.PdsMetrics(registry),
              new dev.knotless.runner.state.pg.PgOAuthSessions(db));
    } catch (IOException e) {
      throw new IllegalStateException("could not log in as the runner: " + e.getMessage(), e);
    }
    String runnerDid = access.runner().did();
    LOG.infof("scheduling runs for %s", runnerDid);
    if (config.secretsKeyFile().isPresent()) {
      try {
        sealed =
            SealedStart.begin(
                config.secretsKeyFile().get(),
                config.appview().orElse(null),
                access.runner(),
                clock);
      } catch (IOException e) {
        throw new IllegalStateException(
            "knotless.scheduler.secrets-key-file: " + e.getMessage(), e);
      }
    } else {
      LOG.info("no knotless.scheduler.secrets-key-file: owners' sealed secrets are not opened");
    }
    // The outputs are in this process's memory: it uploads them as the runner, a private
    // repository's into its space, which reading the repository there (OrderPlanner) routes.
    CheckFiler outputs = new CheckFiler(new RetryingWrites(access.runner()));
    if (dev.knotless.runner.engine.PrivateWiring.begin(env, access, outputs) != null) {
      LOG.info("private repositories are read in their spaces on KNOTLESS_SPACE_HOST");
    }
    executor =
        pods.open(podSettings, new ExecutorContext(runnerDid, config.work(), clock, Map.of()));
    executor.observe(
        new PodObserver() {
          @Override
          public void running(Duration took) {
            podStart.record(took);
          }

          @Override
          public void pulled(Duration took) {
            imagePull.record(took);
          }

          @Override
          public void notRunning(boolean imagePull) {
            if (imagePull) {
              pullFailures.increment();
            }
          }
        });
    planner =
        new OrderPlanner(
            access,
            new RunPlanner(
                    new RunPlanner.Settings(
                        config.secretsFile().orElse(null),
                        config.stepTimeout(),
                        config.runTimeout().orElse(null),
                        Map.of()),
                    // The pod executor copies a write-back's checkout out of its pod first.
                    new WriteBack(access.runner(), access.cache(), clock),
                    sealed.owner())
                .withSharedSteps(new SharedStepFiles(access.heads(), access.cache().dir())),
            access.cache().dir(),
            clock);
    EventReports reports =
        new EventReports(
            this::publish,
            new EventReports.Queue() {
              @Override
              public void started(String checkKey) {
                patiently("mark " + checkKey + " running", () -> queue.start(checkKey));
              }

              @Override
              public void ended(String checkKey) {
                taken.remove(checkKey);
                spans.end(checkKey);
                patiently("take " + checkKey + " off the queue", () -> queue.remove(checkKey, me));
              }
            },
            clock,
            // The check-writer files the check naming them.
            EventReports.OutputUploads.to(outputs),
            // A trusted pull's pass, for the push that merges it (the reconcilers' passes read it).
            (repo, passed) -> repoStates.update(repo, s -> s.withPassed(passed)));
    usage = PodUsage.open(config, db, runnerDid, access.runner(), clock);
    jobs =
        new Jobs(
            new Scheduler(usage.config(), usage.shared().ledger()),
            executor,
            // Runs end only here in the distributed shape: the leader counts them.
            new dev.knotless.runner.engine.MeteredReports(
                reports, new dev.knotless.run.events.RunMetrics(registry), clock),
            clock,
            usage.shared()::ended,
            // Minutes records are decided on the whole runner's usage (ended), as a reconciler's.
            minutes -> {});
  }

  /** Takes the queue over as its leader, {@code identity}. Called once, when this one leads. */
  public synchronized void lead(String identity) {
    me = identity;
    Map<String, String> adoptable = new HashMap<>();
    try {
      for (PodApi.Listed pod : executor.pods()) {
        if (pod.runKey() != null) {
          adoptable.put(pod.runKey(), pod.name());
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not list the runner's pods: " + e.getMessage(), e);
    }
    executor.adopt(adoptable);
    LOG.infof("%s: leading; %d pods of runs going offered for adoption", me, adoptable.size());
    Set<String> queued = poll();
    for (String key : adoptable.keySet()) {
      if (!queued.contains(key)) {
        // Its run ended before the last leader stopped: the sweep may have its pod.
        executor.forgetAdoption(key);
      }
    }
    loops = Executors.newScheduledThreadPool(1, r -> new Thread(r, "scheduler-loops"));
    loops.scheduleWithFixedDelay(
        this::poll, config.poll().toMillis(), config.poll().toMillis(), TimeUnit.MILLISECONDS);
    loops.scheduleWithFixedDelay(
        this::heartbeat, 0, config.heartbeat().toMillis(), TimeUnit.MILLISECONDS);
    loops.scheduleWithFixedDelay(this::sweep, 0, config.sweep().toMillis(), TimeUnit.MILLISECONDS);
    long refresh = config.usageRefresh().toMillis();
    loops.scheduleWithFixedDelay(
        () -> usage.shared().refresh(jobs), refresh, refresh, TimeUnit.MILLISECONDS);
  }

  /**
   * Takes the queued runs no one here holds, oldest first, and hands them to the jobs; returns the
   * check keys of every queued run seen.
   */
  Set<String> poll() {
    Set<String> seen = new HashSet<>();
    if (!taking) {
      return seen;
    }
    try {
      for (PgRunQueue.Row row : queue.ordersNotHeldBy(me, 1000)) {
        String key = row.run().checkKey();
        seen.add(key);
        if (taken.contains(key) || !queue.take(key, me, row.worker())) {
          continue;
        }
        spans.begin(key, TraceParent.parse(queue.traceOf(key).orElse(null)));
        RunOrder order;
        try {
          order = RunOrder.fromJson(row.run().order());
        } catch (IllegalArgumentException e) {
          LOG.errorf("run %s has an order this scheduler cannot read: %s", key, e.getMessage());
          publish(
              new RunEvent.Ended(
                  key,
                  clock.instant(),
                  "error",
                  0,
                  List.of(),
                  "the scheduler could not read the queued run: " + e.getMessage()));
          queue.remove(key, me);
          continue;
        }
        Takeover.Action action = Takeover.of("RUNNING".equals(row.state()), executor.adopting(key));
        if (action instanceof Takeover.Action.EndAsError end) {
          // Its pod is gone: running its steps again would repeat them under the same check.
          LOG.warnf(
              "%s: taken over from %s, started and without a pod; ended as an error",
              key, row.worker());
          publish(new RunEvent.Ended(key, clock.instant(), "error", 0, List.of(), end.note()));
          queue.remove(key, me);
          continue;
        }
        taken.add(key);
        if (row.worker() != null) {
          LOG.infof("%s: taken over from %s (%s)", key, row.worker(), row.state());
        }
        jobs.submit(planner.plan(order));
      }
      cancelAsked();
    } catch (SQLException | RuntimeException e) {
      LOG.warnf("could not read the run queue: %s", e.getMessage());
    }
    return seen;
  }

  /** Cancels the runs held here that a reconciler asked to be cancelled (a batch dropped). */
  private void cancelAsked() throws SQLException {
    for (Map.Entry<String, String> c : queue.cancelsHeldBy(me).entrySet()) {
      CancelReason why;
      try {
        why = CancelReason.valueOf(c.getValue());
      } catch (IllegalArgumentException e) {
        // Another version's reason: the run goes on rather than end for a reason not known here.
        LOG.debugf("%s: asked to be cancelled for %s, unknown here", c.getKey(), c.getValue());
        continue;
      }
      jobs.cancelCheck(c.getKey(), why);
    }
  }

  private void heartbeat() {
    try {
      queue.heartbeat(me);
    } catch (SQLException e) {
      LOG.warnf("could not stamp the runs this scheduler holds: %s", e.getMessage());
    }
  }

  private void sweep() {
    executor.removeLeftovers();
    // A key a rotation put first in the mounted Secret is published within a sweep.
    sealed.republish();
  }

  /** How many of the runner's pods are in {@code phase}, as the watch has them; 0 before any. */
  private double inPhase(String phase) {
    PodExecutor e = executor;
    if (e == null || me == null || !taking) {
      // A standby reports none, so that a sum over the replicas counts each pod once.
      return 0;
    }
    try {
      return e.watchedPods().stream()
          .filter(pod -> phase.equals(pod.phase() == null ? "Pending" : pod.phase()))
          .count();
    } catch (IOException ex) {
      LOG.debugf("could not count the runner's pods: %s", ex.getMessage());
      return Double.NaN;
    }
  }

  /**
   * Takes no more runs. Runs going keep their pods: this process ends with them unfinished and the
   * next leader adopts them.
   */
  public void stopTaking() {
    taking = false;
    ScheduledExecutorService l = loops;
    if (l != null) {
      l.shutdownNow();
    }
    Jobs j = jobs;
    if (j != null) {
      j.stopTaking();
    }
  }

  private void publish(RunEvent e) {
    RecordHeaders headers = new RecordHeaders();
    spans.parentOf(e.checkKey()).ifPresent(p -> headers.add(TraceParent.HEADER, p.header()));
    events.send(
        Message.of(RunEventJson.encode(e))
            .addMetadata(
                OutgoingKafkaRecordMetadata.<String>builder()
                    .withKey(e.checkKey())
                    .withHeaders(headers)
                    .build()));
    if (e instanceof RunEvent.Ended) {
      spans.end(e.checkKey());
    }
  }

  /** A queue write, tried again every second for a minute while PostgreSQL is away. */
  private interface QueueWrite {
    void run() throws SQLException;
  }

  private static void patiently(String what, QueueWrite work) {
    for (int attempt = 1; ; attempt++) {
      try {
        work.run();
        return;
      } catch (SQLException e) {
        if (attempt >= 60) {
          LOG.errorf("could not %s after %d attempts: %s", what, attempt, e.getMessage());
          return;
        }
        try {
          Thread.sleep(1_000);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
