package dev.knotless.run.reconciler.app;

import dev.knotless.run.events.DoorbellMessage;
import dev.knotless.run.events.EventReports;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.events.RunEventJson;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.engine.Jobs;
import dev.knotless.runner.engine.SharedUsage;
import dev.knotless.runner.pass.RunSink;
import dev.knotless.runner.plan.AskedLedger;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.Scheduler;
import dev.knotless.runner.schedule.SchedulerConfig;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.pg.PgAdmissionGate;
import dev.knotless.runner.state.pg.PgRunQueue;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.reactive.messaging.kafka.KafkaClientService;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;
import org.jboss.logging.Logger;

/**
 * Runs the runs this reconciler's passes queue, each in a container of its own (the docker
 * executor), until the scheduler service takes that over. Every run is first claimed in the
 * PostgreSQL run queue under this worker's id; a check another live worker holds is passed over, so
 * no run goes twice. Its progress goes out as run events for the check-writer. The worker says it
 * is alive every {@code heartbeat}; runs whose worker has been silent for {@code stale-after} are
 * put back into their repository's dropped runs and its door rung, so the pass that owns the
 * repository files and runs them again.
 */
@ApplicationScoped
public class RunWorker implements RunSink {
  private static final Logger LOG = Logger.getLogger(RunWorker.class);

  private final String id = "worker-" + UUID.randomUUID();
  private final PgRunQueue queue;
  private final StateStore state;
  private final ReconcilerConfig.Worker config;
  private final Clock clock = Clock.systemUTC();
  private final EventReports reports;
  private final AskedLedger asked = new AskedLedger();
  private final StopHandover handover;
  private final StaleRuns stale;
  private final SupersededElsewhere superseded;
  private volatile Jobs jobs;
  private volatile String runnerDid = "";
  private volatile dev.knotless.runner.engine.MinutesWriter minutes;
  private volatile SharedUsage usage;
  private volatile boolean stopping;

  @Inject
  @Channel("run-events")
  @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 65_536)
  Emitter<String> events;

  @Inject
  @Channel("doorbells-out")
  Emitter<String> doorbells;

  @Inject KafkaClientService kafka;

  public RunWorker(PgRunQueue queue, StateStore state, ReconcilerConfig config) {
    this.queue = queue;
    this.state = state;
    this.config = config.worker();
    this.reports =
        new EventReports(
            this::publish,
            new EventReports.Queue() {
              @Override
              public void started(String checkKey) {
                patiently("mark " + checkKey + " running", () -> queue.start(checkKey));
              }

              @Override
              public void ended(String checkKey) {
                patiently("take " + checkKey + " off the queue", () -> queue.remove(checkKey, id));
              }

              @Override
              public void cutOff(String checkKey) {
                handover.cutOffEnded(checkKey);
              }
            },
            clock);
    this.handover = new StopHandover(queue, state, id, asked, reports, this::ring);
    this.stale =
        new StaleRuns(queue, state, this.config.staleAfter(), this::publish, this::ring, clock);
    this.superseded = new SupersededElsewhere(queue, id);
  }

  /**
   * The runner's account, which labels the containers runs get and holds the owners' minutes
   * records; set once the pass logs in.
   */
  public void useRunner(dev.knotless.atproto.XrpcClient runner) {
    this.runnerDid = runner.did();
    this.minutes =
        new dev.knotless.runner.engine.MinutesWriter(
            new dev.knotless.runner.filing.RetryingWrites(runner), clock);
  }

  /** What each run this worker's passes asked for by name was asked for with. */
  public AskedLedger asked() {
    return asked;
  }

  /** This worker's id in the run queue. */
  public String id() {
    return id;
  }

  @Override
  public void movedOn(String checkKey, String note) {
    // Handed back at a stop and never filed again: the check is still queued.
    publish(new RunEvent.Ended(checkKey, clock.instant(), "cancelled", 0, List.of(), note));
  }

  @Override
  public void submit(PlannedRun run) {
    if (queueOnly()) {
      order(run);
      return;
    }
    PgRunQueue.Run row = row(run, null);
    boolean held = db(() -> queue.claim(row, id, config.staleAfter()));
    if (!held) {
      LOG.infof("%s: %s is held by another live worker, passed over", run.label(), run.rkey());
      return;
    }
    // The pass filed the check queued already: the check-writer learns of it before anything
    // else, so whatever ends it later (a newer commit, once handed back) is taken.
    publish(EventReports.filed(run));
    if (stopping) {
      // Filed by a pass that was under way as the stop came: another worker runs it.
      LOG.infof("%s: %s filed as this worker stops: handed back", run.label(), run.rkey());
      handover.dropped(run);
      return;
    }
    superseded.mark(run, row);
    jobs().submit(run);
  }

  private boolean queueOnly() {
    return "queue".equals(config.mode());
  }

  /** The row {@code run} takes in the queue, with the scheduler's {@code order} or null. */
  private static PgRunQueue.Run row(PlannedRun run, String order) {
    RunRequest r = run.request();
    return new PgRunQueue.Run(
        run.rkey(),
        r.repo(),
        r.ownerDid(),
        r.runClass(),
        r.workflow(),
        run.check().commit(), // a pull's head: its revision is "<head> <base>"
        r.subject(),
        run.check().baseCommit(),
        order);
  }

  /** Leaves the run to the scheduler: its row carries the order, and no worker holds it. */
  private void order(PlannedRun run) {
    if (run.order() == null) {
      LOG.warnf(
          "%s: %s cannot be run by the scheduler: ended as an error", run.label(), run.rkey());
      db(() -> queue.issue(row(run, null)));
      publish(EventReports.filed(run));
      publish(
          new RunEvent.Ended(
              run.rkey(),
              clock.instant(),
              "error",
              0,
              List.of(),
              "the scheduler cannot run this kind of run yet (it has no run order): run it on a"
                  + " reconciler that runs steps"));
      return;
    }
    boolean filed = db(() -> queue.file(row(run, run.order().toJson())));
    if (!filed) {
      LOG.infof("%s: %s is queued already, passed over", run.label(), run.rkey());
      return;
    }
    publish(EventReports.filed(run));
  }

  private synchronized Jobs jobs() {
    if (jobs == null) {
      try {
        Files.createDirectories(config.work());
      } catch (IOException e) {
        throw new IllegalStateException("the work directory " + config.work() + ": " + e, e);
      }
      SchedulerConfig sc =
          SchedulerConfig.defaults(config.jobs(), runnerDid)
              .withCaps(Math.max(1, config.jobs() / 2), config.ownerJobs().orElse(config.jobs()))
              .withAllowances(
                  config.allowance().orElse(SchedulerConfig.UNLIMITED),
                  SchedulerConfig.UNLIMITED,
                  java.util.Set.of());
      usage = new SharedUsage(state, sc, minutes, clock);
      jobs =
          new Jobs(
              new Scheduler(sc, usage.ledger()),
              WorkerExecutor.choose(config, System.getenv())
                  .open(
                      new dev.knotless.runner.exec.ExecutorContext(
                          runnerDid, config.work(), clock, System.getenv())),
              reports,
              clock,
              ended -> {
                if (!stopping) {
                  asked.take(ended.request().runId()); // a stop finds only what still runs
                }
                usage.ended(ended);
              },
              // Minutes records are decided on the whole runner's usage (ended), not this share.
              record -> {});
      // Owner caps hold across reconcilers: admissions count what the others' runs hold.
      jobs.useGate(new PgAdmissionGate(queue, id));
    }
    return jobs;
  }

  // Each tick waits for the application to run: one before that made this bean while its doorbell
  // emitter was not yet connected, and failed with an ERROR at every start.

  /** Catches usage up with every reconciler's and writes held-back minutes records. */
  @Scheduled(
      every = "${knotless.reconciler.worker.usage-refresh:10s}",
      delayed = "5s",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
      skipExecutionIf = Scheduled.ApplicationNotRunning.class)
  void usageAndMinutes() {
    Jobs j = jobs;
    SharedUsage u = usage;
    if (j != null && u != null && !stopping) {
      u.refresh(j);
    }
  }

  /** Admits what waits on an owner's job that another reconciler's run held until now. */
  @Scheduled(
      every = "${knotless.reconciler.worker.heartbeat:5s}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
      skipExecutionIf = Scheduled.ApplicationNotRunning.class)
  void admitWaiting() {
    Jobs j = jobs;
    if (j != null && !stopping) {
      j.admitWaiting();
    }
  }

  private void publish(RunEvent e) {
    events.send(
        Message.of(RunEventJson.encode(e))
            .addMetadata(
                OutgoingKafkaRecordMetadata.<String>builder().withKey(e.checkKey()).build()));
  }

  @Scheduled(
      every = "${knotless.reconciler.worker.heartbeat:5s}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
      skipExecutionIf = Scheduled.ApplicationNotRunning.class)
  void heartbeat() {
    db(() -> queue.heartbeat(id));
    superseded.cancelMarked(jobs);
  }

  /**
   * Puts runs whose worker went silent back into their repositories' dropped runs ({@link
   * StaleRuns}).
   */
  @Scheduled(
      every = "${knotless.reconciler.worker.heartbeat:5s}",
      delayed = "2s",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
      skipExecutionIf = Scheduled.ApplicationNotRunning.class)
  void recover() {
    if (stopping) {
      // A stopping worker leaves what it hands back to the others.
      return;
    }
    // Queueing, the scheduler holds every run with an order and takes its own over at a failover;
    // what is left to recover is the runs of reconcilers that ran them (an upgrade to pods).
    stale.recover(id, queueOnly());
  }

  /** Rings {@code repo}'s door through the topic, so the reconciler Kafka gives it passes it. */
  public void ring(dev.knotless.runner.doorbell.RepoId repo, Doorbell bell) {
    ring(repo.toString(), bell);
  }

  private void ring(String repo, Doorbell bell) {
    doorbells.send(
        Message.of(DoorbellMessage.encode(bell))
            .addMetadata(OutgoingKafkaRecordMetadata.<String>builder().withKey(repo).build()));
  }

  /**
   * The stop runner.md asks for, in a replica: runs asked for by name are cancelled and handed to
   * the reconciler that passes their repository now, to be filed and run again ({@link
   * StopHandover}); waiting runs are handed back at once (their rows let go, so another worker
   * files and runs them again under the same check), except those at the commit of a running
   * deploy; the runs going, deploys included, get up to {@code stop-wait} to end and file their
   * checks; whatever still runs then is cancelled without an end and handed back the same way.
   */
  void stop(@Observes ShutdownEvent ev) {
    stopping = true;
    leaveDoorbells();
    Jobs j = jobs;
    if (j == null) {
      return;
    }
    j.stop(handover);
    try {
      LOG.infof("stopping: waiting up to %s for %d running runs", config.stopWait(), j.counts()[1]);
      if (!awaitIdle(j, config.stopWait())) {
        LOG.warnf("stopping: %s is up; handing back what still runs", config.stopWait());
        reports.stopping();
        j.cancelRunning("the worker stopped");
        j.awaitIdle(Duration.ofSeconds(30));
      }
      db(() -> queue.release(id));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.warnf("the queue could not be told this worker stopped: %s", e.getMessage());
    }
    j.close();
  }

  /**
   * Waits up to {@code max} for the runs going to end, cancelling each second those a newer commit
   * filed by another worker superseded meanwhile: a stop need not wait for a run nobody wants.
   */
  private boolean awaitIdle(Jobs j, Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (j.awaitIdle(Duration.ofNanos(Math.max(0, Math.min(left, 1_000_000_000L))))) {
        return true;
      }
      if (left <= 1_000_000_000L) {
        return false;
      }
      superseded.cancelMarked(j);
    }
  }

  /**
   * Leaves the doorbell group at once, so its partitions go to another reconciler now (which rings
   * their doors and files what this one hands back) rather than when this one's stop ends.
   */
  private void leaveDoorbells() {
    try {
      io.smallrye.reactive.messaging.kafka.KafkaConsumer<String, String> consumer =
          kafka.getConsumer("doorbells");
      java.util.function.Consumer<org.apache.kafka.clients.consumer.Consumer<String, String>>
          leave = org.apache.kafka.clients.consumer.Consumer::unsubscribe;
      consumer.runOnPollingThread(leave).await().atMost(Duration.ofSeconds(10));
      LOG.info("stopping: left the doorbell group");
    } catch (RuntimeException e) {
      LOG.warnf("stopping: could not leave the doorbell group now: %s", e.getMessage());
    }
  }

  /**
   * A queue write a run's progress needs, tried again every second for a minute while PostgreSQL is
   * away: a database restart must not end a run. Past that the run goes on, and the row is left to
   * the recovery (a run's end is published before its row goes, so nothing is lost).
   */
  private static void patiently(String what, QueueCall<Boolean> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        db(work);
        return;
      } catch (RuntimeException e) {
        if (attempt >= 60) {
          LOG.errorf("could not %s after %d attempts: %s", what, attempt, e.getMessage());
          return;
        }
        if (attempt == 1) {
          LOG.warnf("could not %s, trying again every second: %s", what, e.getMessage());
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

  /** A call on the run queue, which blocks its caller. */
  @FunctionalInterface
  interface QueueCall<T> {
    T call() throws SQLException;
  }

  /**
   * Calls the run queue; a database failure is thrown unchecked, as the pass and the scheduled
   * ticks handle every failure of the queue alike.
   */
  static <T> T db(QueueCall<T> work) {
    try {
      return work.call();
    } catch (SQLException e) {
      throw new IllegalStateException("the run queue could not be reached: " + e.getMessage(), e);
    }
  }
}
