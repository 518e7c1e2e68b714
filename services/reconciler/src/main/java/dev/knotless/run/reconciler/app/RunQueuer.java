package dev.knotless.run.reconciler.app;

import dev.knotless.run.events.DoorbellMessage;
import dev.knotless.run.events.EventReports;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.events.RunEventJson;
import dev.knotless.run.events.TraceParent;
import dev.knotless.run.events.Traces;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.pass.RunSink;
import dev.knotless.runner.plan.AskedLedger;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.state.pg.PgRunQueue;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.reactive.messaging.kafka.KafkaClientService;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;
import org.jboss.logging.Logger;

/**
 * Queues the runs this reconciler's passes file, each row in the PostgreSQL run queue with its run
 * order, for the scheduler service, which runs each as a pod; a reconciler runs nothing itself. It
 * publishes each run's {@code filed} event for the check-writer, and files again the runs that
 * reconcilers of older versions ran themselves and left held by a silent worker ({@link
 * StaleRuns}). A run queued is a span ({@link Traces#QUEUED}) in the pass's trace, named on its
 * {@code filed} event and its row, so the scheduler and the check-writer continue that trace.
 */
@ApplicationScoped
public class RunQueuer implements RunSink {
  private static final Logger LOG = Logger.getLogger(RunQueuer.class);

  /** How long a run's row waits for its {@code filed} event to reach the broker. */
  private static final Duration ACKED = Duration.ofSeconds(30);

  private final String id = "reconciler-" + UUID.randomUUID();
  private final PgRunQueue queue;
  private final Clock clock = Clock.systemUTC();
  private final AskedLedger asked = new AskedLedger();
  private final StaleRuns stale;
  private volatile boolean stopping;

  @Inject
  @Channel("run-events")
  @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 65_536)
  Emitter<String> events;

  @Inject
  @Channel("doorbells-out")
  @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 65_536)
  Emitter<String> doorbells;

  @Inject KafkaClientService kafka;

  @Inject Tracer tracer;

  public RunQueuer(PgRunQueue queue, StateStore state, ReconcilerConfig config) {
    this.queue = queue;
    this.stale =
        new StaleRuns(
            queue, state, config.recovery().staleAfter(), this::publish, this::ring, clock);
  }

  /** What each run this reconciler's passes asked for by name was asked for with. */
  public AskedLedger asked() {
    return asked;
  }

  @Override
  public void movedOn(String checkKey, String note) {
    // A run filed again from a silent old worker's row whose ref moved on: its check is queued.
    publish(new RunEvent.Ended(checkKey, clock.instant(), "cancelled", 0, List.of(), note));
  }

  /**
   * A check issued within the hour by a pass whose ref's generation was never recorded: the pass
   * that issued it was cut off, and its next pass must not run the commit again.
   */
  @Override
  public boolean handedOnLately(String checkKey) {
    return db(() -> queue.handedOnWithin(checkKey, Duration.ofHours(1)));
  }

  /** Leaves the run to the scheduler: its row carries the order, and nothing holds it. */
  @Override
  public void submit(PlannedRun run) {
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
              "the scheduler cannot run this kind of run (it has no run order)"));
      return;
    }
    PgRunQueue.Run row = row(run, run.order().toJson());
    if (db(() -> queue.queued(run.rkey()))) {
      LOG.infof("%s: %s is queued already, passed over", run.label(), run.rkey());
      return;
    }
    Span span =
        Traces.start(tracer, Traces.QUEUED, SpanKind.PRODUCER, Traces.current())
            .setAttribute("knotless.check", run.rkey());
    try {
      queue(run, row, Traces.parentOf(span));
    } finally {
      span.end();
    }
  }

  private void queue(PlannedRun run, PgRunQueue.Run row, Optional<TraceParent> trace) {
    // Issued, then `filed` on the broker, then the row: the scheduler takes a row at once, and
    // its `started` must not reach the check-writer before `filed` (it would be refused, and the
    // run's log with it).
    db(() -> queue.issue(row));
    publishAndWait(EventReports.filed(run), trace);
    if (!db(() -> queue.file(row, trace.map(TraceParent::value).orElse(null)))) {
      LOG.infof("%s: %s was queued meanwhile, passed over", run.label(), run.rkey());
      return;
    }
    LOG.infof(
        "%s: %s at %s queued for the scheduler",
        run.label(), run.check().workflow(), run.check().commit());
  }

  /**
   * Asks the scheduler to cancel the run {@code runId} ({@code <check key>#<n>}, as the planner
   * names runs) for {@code why}: the merge queue dropping a batch under way.
   */
  public void cancel(String runId, dev.knotless.runner.schedule.CancelReason why) {
    String key = PlannedRun.rkeyOf(runId);
    if (db(() -> queue.askCancel(key, why.name()))) {
      LOG.infof("%s: the scheduler is asked to cancel it (%s)", key, why);
    }
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

  /**
   * Publishes {@code e} and waits up to {@link #ACKED} for the broker to have it; past that, or on
   * a failure the emitter reports, the run is queued anyway, as before this wait.
   */
  private void publishAndWait(RunEvent e, Optional<TraceParent> trace) {
    java.util.concurrent.CompletableFuture<Void> acked =
        new java.util.concurrent.CompletableFuture<>();
    RecordHeaders headers = new RecordHeaders();
    trace.ifPresent(p -> headers.add(TraceParent.HEADER, p.header()));
    events.send(
        Message.of(RunEventJson.encode(e))
            .addMetadata(
                OutgoingKafkaRecordMetadata.<String>builder()
                    .withKey(e.checkKey())
                    .withHeaders(headers)
                    .build())
            .withAck(
                () -> {
                  acked.complete(null);
                  return java.util.concurrent.CompletableFuture.completedFuture(null);
                })
            .withNack(
                t -> {
                  acked.completeExceptionally(t);
                  return java.util.concurrent.CompletableFuture.completedFuture(null);
                }));
    try {
      acked.get(ACKED.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
      LOG.warnf("%s: filed not acknowledged by the broker: %s", e.checkKey(), ex.toString());
    }
  }

  private void publish(RunEvent e) {
    events.send(
        Message.of(RunEventJson.encode(e))
            .addMetadata(
                OutgoingKafkaRecordMetadata.<String>builder().withKey(e.checkKey()).build()));
  }

  // The tick waits for the application to run: one before that made this bean while its doorbell
  // emitter was not yet connected, and failed with an ERROR at every start.

  /**
   * Files again the runs a reconciler of an older version ran itself and that its silent worker
   * still holds ({@link StaleRuns}); rows with an order are the scheduler's, which takes its own
   * over at a failover.
   */
  @Scheduled(
      every = "${knotless.reconciler.recovery.every:5s}",
      delayed = "2s",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
      skipExecutionIf = Scheduled.ApplicationNotRunning.class)
  void recover() {
    if (!stopping) {
      stale.recover(id, true);
    }
  }

  /** Rings {@code repo}'s door through the topic, so the reconciler Kafka gives it passes it. */
  public void ring(RepoId repo, Doorbell bell) {
    ring(repo.toString(), bell);
  }

  /**
   * Rings each of {@code repos} through the topic and completes once Kafka has taken every ring (or
   * fails with the first it refused): the passes a reconciler owes when its partitions move are
   * handed back to the log this way, for the partitions' next owner (AssignedDoors).
   */
  public CompletableFuture<Void> ringAll(Collection<RepoId> repos, Doorbell bell) {
    String payload = DoorbellMessage.encode(bell);
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    for (RepoId repo : repos) {
      CompletableFuture<Void> taken = new CompletableFuture<>();
      doorbells.send(
          Message.of(payload)
              .addMetadata(
                  OutgoingKafkaRecordMetadata.<String>builder().withKey(repo.toString()).build())
              .withAck(
                  () -> {
                    taken.complete(null);
                    return CompletableFuture.completedFuture(null);
                  })
              .withNack(
                  e -> {
                    taken.completeExceptionally(e);
                    return CompletableFuture.completedFuture(null);
                  }));
      sent.add(taken);
    }
    return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
  }

  private void ring(String repo, Doorbell bell) {
    doorbells.send(
        Message.of(DoorbellMessage.encode(bell))
            .addMetadata(OutgoingKafkaRecordMetadata.<String>builder().withKey(repo).build()));
  }

  /**
   * A stop leaves the doorbell group at once, so its partitions go to another reconciler now rather
   * than when this one's stop ends. The runs it queued are the scheduler's and go on.
   */
  void stop(@Observes ShutdownEvent ev) {
    stopping = true;
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
