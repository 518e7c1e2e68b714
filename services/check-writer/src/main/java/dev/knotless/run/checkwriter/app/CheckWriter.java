package dev.knotless.run.checkwriter.app;

import dev.knotless.atproto.BlobRef;
import dev.knotless.run.checkwriter.adapter.appview.AppviewSender;
import dev.knotless.run.checkwriter.adapter.files.CheckFiles;
import dev.knotless.run.checkwriter.domain.CheckProgress;
import dev.knotless.run.checkwriter.domain.LogTail;
import dev.knotless.run.events.RunEvent;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.checks.CheckFiler;
import dev.knotless.runner.liveoutput.HoldBuffer;
import dev.knotless.runner.liveoutput.OutputFeed;
import dev.knotless.runner.liveoutput.Pieces;
import dev.knotless.runner.liveoutput.Send;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

/**
 * Applies run events to checks: files the record as the run is filed, starts and ends, keeps the
 * log on disk by byte offset, and streams whole lines to the appview through {@link OutputFeed}.
 * Every event is on disk before {@link #handle} returns, so the Kafka offset committed after it
 * never covers state that a restart would miss.
 */
@ApplicationScoped
public class CheckWriter {
  private static final Logger LOG = Logger.getLogger(CheckWriter.class);
  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(5);

  /** One check in memory; guarded by its own monitor. */
  private static final class Live {
    CheckProgress progress;
    OutputFeed feed;
    Instant nextRound = Instant.EPOCH;
  }

  private final PdsSession session;
  private final CheckFiles files;
  private final Optional<AppviewSender> appview;
  private final MeterRegistry registry;
  private final Timer lag;
  private final Map<String, Live> live = new ConcurrentHashMap<>();

  public CheckWriter(CheckWriterConfig config, PdsSession session, MeterRegistry registry)
      throws IOException {
    this.session = session;
    this.files = new CheckFiles(config.stateDir());
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
        Timer.builder("knotless.run.check_writer.lag")
            .description("From an event's time to its check filed")
            .register(registry);
  }

  /** Applies one event; returns once what it changed is on disk and, if due, filed. */
  public void handle(RunEvent event) throws IOException {
    String key = event.checkKey();
    MDC.put("check", key);
    try {
      if (event instanceof RunEvent.Filed f && files.newRun(f)) {
        // Events of one check come in order, so all of the earlier run's are behind us.
        LOG.infof("the check is filed again for a new run; what was kept of the last goes");
        live.remove(key);
        files.forget(key);
      }
      if (files.done(key)) {
        LOG.debugf("event %s of a check already ended, passed over", type(event));
        return;
      }
      Live l = live.computeIfAbsent(key, this::load);
      synchronized (l) {
        apply(l, event);
      }
    } finally {
      MDC.remove("check");
    }
  }

  /** Forgets what is in memory, as a restart does; the next event reloads each check from disk. */
  public void dropMemory() {
    live.clear();
  }

  private void apply(Live l, RunEvent event) throws IOException {
    String key = event.checkKey();
    if (l.progress == null && !(event instanceof RunEvent.Filed)) {
      LOG.warnf("%s event of a check never filed, passed over", type(event));
      return;
    }
    if (event instanceof RunEvent.Output o) {
      LogTail tail = files.addOutput(key, o.offset(), o.data());
      if (tail.gap() > 0) {
        registry.counter("knotless.run.check_writer.output.gaps").increment();
        LOG.warnf("output at %d left %d bytes unseen; passed over", o.offset(), tail.gap());
      } else if (tail.extendsLog() && l.feed != null) {
        l.feed.feed(o.offset(), o.data());
      }
      return;
    }
    if (!files.addEvent(event)) {
      LOG.debugf("%s event seen before, passed over", type(event));
      return;
    }
    if (event instanceof RunEvent.Filed f) {
      l.progress = CheckProgress.filed(f);
      file(key, l.progress.record(null), event);
      return;
    }
    l.progress = l.progress.apply(event);
    if (event instanceof RunEvent.Started) {
      file(key, l.progress.record(null), event);
    } else if (event instanceof RunEvent.Ended e) {
      end(l, e);
    } else if (l.feed != null) {
      l.feed.progressChanged();
    }
  }

  private void end(Live l, RunEvent.Ended e) throws IOException {
    String key = e.checkKey();
    byte[] log = files.log(key);
    if (log.length != e.logLength()) {
      LOG.warnf("ended with %d of the %d log bytes the run wrote", log.length, e.logLength());
    }
    if (l.feed != null) {
      finalSends(key, l);
    }
    CheckFiler filer = session.filer();
    BlobRef blob = filer.uploadLog(log);
    file(key, l.progress.record(blob), e);
    files.markDone(l.progress.filed());
    live.remove(key);
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
        appview.get().send(uri, s, left);
      } catch (IOException ex) {
        LOG.infof("the last live output did not reach the appview: %s", ex.getMessage());
        return;
      }
    }
  }

  /** Sends what each running check holds to the appview when its round is due. */
  @Scheduled(
      every = "${knotless.check-writer.tick:1s}",
      concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
  void rounds() {
    if (appview.isEmpty() || session.current().isEmpty()) {
      return;
    }
    for (Map.Entry<String, Live> entry : live.entrySet()) {
      Live l = entry.getValue();
      synchronized (l) {
        if (l.feed == null || l.progress == null || l.progress.status().ended()) {
          continue;
        }
        Instant now = Instant.now();
        if (!l.feed.dueNow() && now.isBefore(l.nextRound)) {
          continue;
        }
        String uri = checkUri(entry.getKey());
        OutputFeed.Round r =
            l.feed.round(l.progress.progress(), s -> appview.get().send(uri, s, SEND_TIMEOUT));
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

  private Live load(String key) {
    Live l = new Live();
    try {
      for (RunEvent e : files.events(key)) {
        l.progress = e instanceof RunEvent.Filed f ? CheckProgress.filed(f) : l.progress.apply(e);
      }
      if (appview.isPresent()) {
        // Events carry masked bytes already, so the feed's own mask has nothing left to do.
        HoldBuffer hold = new HoldBuffer();
        l.feed = new OutputFeed(UnaryOperator.identity(), Pieces.MAX_PIECE_BYTES, hold);
        if (files.logLength(key) > 0) {
          // After a restart the whole lines on disk count as sent, so the appview sees no line
          // twice; the unended last one stays in the feed and goes once it ends. What a failed
          // round held before the restart is not sent: the log blob keeps it.
          l.feed.feed(0, files.log(key));
          hold.sent(hold.held().size());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("check " + key + " could not be read from disk", e);
    }
    return l;
  }

  private static String type(RunEvent e) {
    return e.getClass().getSimpleName();
  }
}
