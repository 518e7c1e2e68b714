package dev.knotless.run.checkwriter.app;

import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.XrpcException;
import dev.knotless.run.checkwriter.adapter.kafka.EndedDoors;
import dev.knotless.run.checkwriter.domain.Admission;
import dev.knotless.run.checkwriter.domain.CheckProgress;
import dev.knotless.run.checkwriter.domain.LogTail;
import dev.knotless.run.events.RunEvent;
import dev.knotless.run.events.RunEventJson;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.liveoutput.AppviewSender;
import dev.knotless.runner.liveoutput.HoldBuffer;
import dev.knotless.runner.liveoutput.OutputFeed;
import dev.knotless.runner.liveoutput.Pieces;
import dev.knotless.runner.liveoutput.Send;
import dev.knotless.runner.mergequeue.EndedRings;
import dev.knotless.runner.state.pg.PgCheckLedger;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

/**
 * Applies run events to checks. Each running check's state and log are kept in PostgreSQL ({@link
 * PgCheckLedger}), shared by every replica, and each event is applied in one transaction under the
 * check's lock: the PDS write an event causes happens inside it, and the transaction commits before
 * {@link #handle} returns, so the Kafka offset committed after it never covers state a replica that
 * takes the partition over would miss. Applying an event twice changes nothing (output by its byte
 * offset, other events by their JSON), so a redelivery after a rebalance or a crash neither loses
 * nor repeats a line. The check is filed running at {@code started} and with its end, steps, log
 * and outputs (uploaded by the process that ran it) at {@code ended}; the queued record is the
 * pass's, so {@code filed} writes nothing to the PDS. Whole lines stream to the appview through
 * {@link OutputFeed}.
 */
@ApplicationScoped
public class CheckWriter {
  private static final Logger LOG = Logger.getLogger(CheckWriter.class);
  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(5);
  private static final int DB_ATTEMPTS = 120;
  private static final String BLOB_NOT_FOUND = "BlobNotFound";

  /** One check in this replica's memory; guarded by its own monitor. */
  private static final class Live {
    CheckProgress progress;
    OutputFeed feed;
    // A private repository's space, named in each piece sent so that only its members see it.
    String space;
    Instant nextRound = Instant.EPOCH;
    // What of the kept check this reflects: another replica may have moved it on meanwhile.
    long keptLog;
    int keptEvents;
    Instant touched = Instant.now();
  }

  /** A check no event touched for this long is let go of memory (its partition may have moved). */
  private static final Duration IDLE = Duration.ofMinutes(2);

  private final PdsSession session;
  private final PgCheckLedger ledger;
  private final Optional<AppviewSender> appview;
  private final MeterRegistry registry;
  private final Timer lag;
  private final Map<String, Live> live = new ConcurrentHashMap<>();
  private final EndedDoors doors;

  public CheckWriter(
      CheckWriterConfig config,
      PdsSession session,
      DataSource db,
      MeterRegistry registry,
      EndedDoors doors) {
    this.session = session;
    this.doors = doors;
    this.ledger = new PgCheckLedger(db);
    this.appview =
        config
            .appview()
            .map(
                url ->
                    new AppviewSender(
                        url,
                        () -> {
                          if (config.appviewDid().isEmpty()) {
                            return Optional.empty();
                          }
                          return Optional.of(
                              session.serviceToken(config.appviewDid().get(), AppviewSender.NSID));
                        }));
    this.registry = registry;
    this.lag =
        dev.knotless.run.events.Histograms.seconds(
                "knotless.run.check_writer.lag", "from an event's time to its check filed")
            .register(registry);
    registry.counter("knotless.run.check_writer.output.gaps");
    registry.counter("knotless.run.check_writer.output.rewritten");
    registry.counter("knotless.run.check_writer.outputs.lost");
  }

  /**
   * Applies one event; returns once what it changed is committed and, if due, filed.
   *
   * @return why the event was refused (it names no run the queue issued), or empty when it was
   *     applied or was one already applied
   * @throws IOException the PDS or the database failed; nothing of the event was kept
   */
  public Optional<String> handle(RunEvent event) throws IOException {
    String key = event.checkKey();
    MDC.put("check", key);
    try {
      Optional<String> refused = patiently(key, event);
      if (refused.isPresent()) {
        LOG.warnf("%s event refused: %s", type(event), refused.get());
      }
      return refused;
    } catch (IOException | RuntimeException e) {
      // The transaction rolled back: what memory holds of the check may be ahead of it.
      live.remove(key);
      throw e;
    } finally {
      MDC.remove("check");
    }
  }

  /**
   * Applies the event, trying again every second for two minutes while the database is away: a
   * PostgreSQL restart must not stop the channel. A try that failed rolled back, so the next one
   * starts from what was committed (a PDS write it made is made again, with the same content).
   */
  private Optional<String> patiently(String key, RunEvent event) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return ledger.withCheck(key, kept -> apply(kept, event));
      } catch (SQLException e) {
        live.remove(key);
        if (attempt >= DB_ATTEMPTS) {
          throw new IOException("check " + key + " could not be kept: " + e.getMessage(), e);
        }
        if (attempt == 1) {
          LOG.warnf("the database failed, trying again every second: %s", e.getMessage());
        }
        try {
          Thread.sleep(1_000);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while the database was away", ie);
        }
      }
    }
  }

  /** Forgets what is in memory, as a restart does; the next event reloads each check. */
  public void dropMemory() {
    live.clear();
  }

  /** Forgets checks ended, and runs issued, more than 30 days ago. */
  @Scheduled(every = "1h", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  void prune() {
    try {
      int n = ledger.prune(Duration.ofDays(30));
      if (n > 0) {
        LOG.infof("%d rows of checks ended and runs issued over 30 days ago went", n);
      }
    } catch (SQLException e) {
      LOG.warnf("old checks could not be pruned: %s", e.getMessage());
    }
  }

  private Optional<String> apply(PgCheckLedger.Kept kept, RunEvent event)
      throws IOException, SQLException {
    String key = event.checkKey();
    if (event instanceof RunEvent.Filed f) {
      String json = RunEventJson.encode(f);
      if (kept.filed().filter(json::equals).isPresent()) {
        LOG.debugf("filed event seen before, passed over");
        return Optional.empty();
      }
      Optional<String> refused = Admission.refusal(f, kept.issued());
      if (refused.isPresent()) {
        return refused;
      }
      try {
        routed(f);
      } catch (dev.knotless.runner.filing.SpaceRoutes.HostAway e) {
        // Nothing known yet: the event is tried again, as when the PDS fails.
        throw e;
      } catch (IOException e) {
        // Nothing of a private repository may land in the runner's public account instead.
        return Optional.of(e.getMessage());
      }
      if (kept.filed().isPresent()) {
        // Events of one check come in order, so all of the earlier run's are behind us.
        LOG.infof("the check is filed again for a new run; what was kept of the last goes");
      }
      kept.start(json);
      live.remove(key);
      Live l = load(kept, key);
      l.progress = CheckProgress.filed(f);
      return Optional.empty();
    }
    if (kept.filed().isEmpty()) {
      return Optional.of(Admission.unfiled(event));
    }
    if (kept.done()) {
      LOG.debugf("event %s of a check already ended, passed over", type(event));
      return Optional.empty();
    }
    Live l = live.get(key);
    if (l == null || l.keptLog != kept.logLength() || l.keptEvents != kept.events().size()) {
      l = load(kept, key);
    }
    synchronized (l) {
      applyKept(kept, l, event);
      l.keptLog = kept.logLength();
      l.keptEvents = kept.events().size();
      l.touched = Instant.now();
    }
    return Optional.empty();
  }

  private void applyKept(PgCheckLedger.Kept kept, Live l, RunEvent event)
      throws IOException, SQLException {
    if (event instanceof RunEvent.Output o) {
      LogTail tail = LogTail.of(kept.logLength(), o.offset(), o.data().length);
      int held = tail.held(o.data().length);
      int differs =
          held == 0 ? -1 : LogTail.firstDifference(kept.logRange(o.offset(), held), o.data());
      if (tail.gap() > 0) {
        registry.counter("knotless.run.check_writer.output.gaps").increment();
        LOG.warnf("output at %d left %d bytes unseen; passed over", o.offset(), tail.gap());
      } else if (differs >= 0) {
        // Another writer began the log again: what the log held from there on is replaced by its
        // bytes, so the log is one writer's, never two spliced.
        long at = o.offset() + differs;
        registry.counter("knotless.run.check_writer.output.rewritten").increment();
        LOG.warnf(
            "output at %d differs from the log held at byte %d: the log from there is rewritten"
                + " (%d bytes dropped), as a scheduler that adopted the run writes it",
            o.offset(), at, kept.logLength() - at);
        kept.truncateLog(at);
        byte[] data = o.data();
        kept.appendLog(at, Arrays.copyOfRange(data, differs, data.length));
      } else if (tail.extendsLog()) {
        byte[] data = o.data();
        kept.appendLog(
            o.offset() + tail.from(), Arrays.copyOfRange(data, tail.from(), data.length));
        if (l.feed != null) {
          l.feed.feed(o.offset(), o.data());
        }
      }
      return;
    }
    if (!kept.addEvent(RunEventJson.encode(event))) {
      LOG.debugf("%s event seen before, passed over", type(event));
      return;
    }
    l.progress = l.progress.apply(event);
    if (event instanceof RunEvent.Started) {
      file(event.checkKey(), l.progress.record(null), event);
    } else if (event instanceof RunEvent.Ended e) {
      end(kept, l, e);
    } else if (l.feed != null) {
      l.feed.progressChanged();
    }
  }

  private void end(PgCheckLedger.Kept kept, Live l, RunEvent.Ended e)
      throws IOException, SQLException {
    String key = e.checkKey();
    byte[] log = kept.log();
    if (log.length != e.logLength()) {
      LOG.warnf("ended with %d of the %d log bytes the run wrote", log.length, e.logLength());
    }
    if (l.feed != null) {
      finalSends(key, l);
    }
    CheckFiler filer = session.filer();
    BlobRef blob = filer.uploadLog(key, log);
    try {
      file(key, l.progress.record(blob), e);
    } catch (XrpcException x) {
      if (!BLOB_NOT_FOUND.equals(x.error()) || l.progress.outputs().isEmpty()) {
        throw x;
      }
      // The outputs' blobs were uploaded as the run ended; a PDS may let unnamed blobs go before
      // a check this far behind names them. The log was uploaded just now, so theirs are gone.
      registry.counter("knotless.run.check_writer.outputs.lost").increment();
      LOG.warnf("the run's outputs were gone from the PDS, filed without them: %s", x.getMessage());
      l.progress = l.progress.withoutOutputs();
      file(key, l.progress.record(blob), e);
    }
    kept.markDone();
    live.remove(key);
    RunEvent.Filed f = l.progress.filed();
    if (EndedRings.rings(f.ownerDid(), f.repoKey(), f.ref(), f.pull(), key)) {
      // A batch's ending is what its queue waits on; a pull's may let it into a batch.
      doors.ring(f.ownerDid(), f.repoKey());
    }
  }

  /** The last sends, given five seconds in all and never sent again: the log is what is kept. */
  private void finalSends(String key, Live l) throws IOException {
    String uri = checkUri(key);
    Instant deadline = Instant.now().plus(OutputFeed.FINAL_SEND_BUDGET);
    for (Send s : l.feed.finalSends(l.progress.progress())) {
      Duration left = Duration.between(Instant.now(), deadline);
      if (left.isNegative() || left.isZero()) {
        LOG.infof("the last live output was cut off after %d s", 5);
        return;
      }
      try {
        appview.get().send(uri, l.space, s, left);
      } catch (IOException ex) {
        LOG.infof("the last live output did not reach the appview: %s", ex.getMessage());
        return;
      }
    }
  }

  /**
   * Sends what each running check holds to the appview when its round is due, and lets go of checks
   * no event touched for two minutes.
   */
  @Scheduled(
      every = "${knotless.check-writer.tick:1s}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  void rounds() {
    boolean send = appview.isPresent() && session.current().isPresent();
    for (Map.Entry<String, Live> entry : live.entrySet()) {
      Live l = entry.getValue();
      synchronized (l) {
        if (Instant.now().isAfter(l.touched.plus(IDLE))) {
          live.remove(entry.getKey(), l);
          continue;
        }
        if (!send) {
          continue;
        }
        if (l.feed == null || l.progress == null || l.progress.status().ended()) {
          continue;
        }
        Instant now = Instant.now();
        if (!l.feed.dueNow() && now.isBefore(l.nextRound)) {
          continue;
        }
        String uri = checkUri(entry.getKey());
        OutputFeed.Round r =
            l.feed.round(
                l.progress.progress(), s -> appview.get().send(uri, l.space, s, SEND_TIMEOUT));
        l.nextRound = now.plus(l.feed.interval());
        if (r.failure() != null) {
          LOG.debugf(
              "live output of %s held for the next round: %s",
              entry.getKey(), r.failure().getMessage());
        }
      }
    }
  }

  private void file(String key, CheckRecord record, RunEvent event) throws IOException {
    session.filer().file(key, record);
    lag.record(Duration.between(event.at(), Instant.now()));
    LOG.infof("check filed as %s", record.status().wire());
  }

  private String checkUri(String key) {
    return "at://" + session.current().orElseThrow().runnerDid() + "/dev.knotless.check/" + key;
  }

  /** The check as kept, into this replica's memory, with a feed that sends no line twice. */
  private Live load(PgCheckLedger.Kept kept, String key) throws SQLException, IOException {
    Live l = new Live();
    for (String json : kept.filed().stream().toList()) {
      RunEvent.Filed f = (RunEvent.Filed) RunEventJson.decode(json);
      // Taken over from another replica or a restart: a private check's space is known again.
      routed(f);
      l.progress = CheckProgress.filed(f);
    }
    for (String json : kept.events()) {
      l.progress = l.progress.apply(RunEventJson.decode(json));
    }
    // A private run's output names its space, for the appview to show only to its members; one
    // whose space is not known is not sent at all.
    if (l.progress.filed().privateRepo()) {
      var space = session.filer().spaces().spaceOf(key);
      l.space = space == null ? null : space.space().toString();
    }
    if (appview.isPresent() && (l.space != null || !l.progress.filed().privateRepo())) {
      // Events carry masked bytes already, so the feed's own mask has nothing left to do.
      HoldBuffer hold = new HoldBuffer();
      l.feed = new OutputFeed(UnaryOperator.identity(), Pieces.MAX_PIECE_BYTES, hold);
      if (kept.logLength() > 0) {
        // Taken over from another replica or a restart: the whole lines kept count as sent, so the
        // appview sees no line twice; the unended last one stays in the feed and goes once it
        // ends. What a failed round held elsewhere is not sent: the log blob keeps it.
        l.feed.feed(0, kept.log());
        hold.sent(hold.held().size());
      }
    }
    l.keptLog = kept.logLength();
    l.keptEvents = kept.events().size();
    live.put(key, l);
    return l;
  }

  /** Files a private repository's checks into its space, which its {@code filed} event names. */
  private void routed(RunEvent.Filed f) throws IOException {
    if (f.privateRepo()) {
      session.routes().route(f.ownerDid(), f.repoKey(), f.repoName());
    }
  }

  private static String type(RunEvent e) {
    return e.getClass().getSimpleName();
  }
}
