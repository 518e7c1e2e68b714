package dev.knotless.runner.liveoutput;

import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.StepResult;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The all-in-one runner's live output: follows each run as its executor writes the (already masked)
 * log, and sends whole lines to the appview through the same {@link OutputFeed} and {@link
 * AppviewSender} the check-writer uses. A round goes every {@link OutputFeed#interval()} (a second
 * while a page follows the run, five otherwise) and at once when a step starts or ends; {@link
 * #finish} makes the last sends, given {@link OutputFeed#FINAL_SEND_BUDGET} in all and never
 * repeated, before the check is filed. A run never waits on the appview: sends go on this object's
 * own thread, and a failed one is held for the next round.
 *
 * <p>Thread-safe.
 */
public final class LiveOutput implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LiveOutput.class);

  /** The longest one send of a round may take. */
  static final Duration SEND_TIMEOUT = Duration.ofSeconds(5);

  /** How often the rounds of every run are looked at. */
  private static final Duration TICK = Duration.ofMillis(250);

  /** Sends one piece for a check. */
  @FunctionalInterface
  public interface Sink {
    /** Sends {@code send} for the check {@code checkUri}; whether a page follows the run. */
    boolean send(String checkUri, Send send, Duration timeout) throws IOException;

    /**
     * Sends {@code send} for a run whose output the appview shows only to members of {@code space}
     * ({@code <owner did>/<name>}), or to everyone when it is null. A sink that cannot name a space
     * refuses a private run's output rather than send it as a public one.
     */
    default boolean send(String checkUri, String space, Send send, Duration timeout)
        throws IOException {
      if (space != null) {
        throw new IOException("this sink cannot send a private run's output");
      }
      return send(checkUri, send, timeout);
    }
  }

  private final Sink sink;
  private final Clock clock;
  private final Map<String, Follower> runs = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "knotless-live-output");
            t.setDaemon(true);
            return t;
          });

  /** Sends through {@code sender}, to the appview it names. */
  public LiveOutput(AppviewSender sender, Clock clock) {
    this(
        new Sink() {
          @Override
          public boolean send(String checkUri, Send send, Duration timeout) throws IOException {
            return sender.send(checkUri, send, timeout);
          }

          @Override
          public boolean send(String checkUri, String space, Send send, Duration timeout)
              throws IOException {
            return sender.send(checkUri, space, send, timeout);
          }
        },
        clock);
  }

  /** Sends through {@code sink}. */
  public LiveOutput(Sink sink, Clock clock) {
    this.sink = sink;
    this.clock = clock;
    timer.scheduleWithFixedDelay(this::tick, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Follows one run from now on, its output going as the check {@code checkUri}.
   *
   * @param key the run's check key, for {@link #finish}
   */
  public RunListener follow(String key, String checkUri) {
    return follow(key, checkUri, null);
  }

  /**
   * As {@link #follow(String, String)}, for a private repository's run when {@code space} (its
   * {@code <owner did>/<name>}) is not null: every piece names the space, for the appview to show
   * only to its members.
   */
  public RunListener follow(String key, String checkUri, String space) {
    Follower f = new Follower(checkUri, space, clock.instant());
    runs.put(key, f);
    return f;
  }

  /**
   * The run {@code key} ended: the last sends (the rest of the log, marked ended), given five
   * seconds in all, on the caller's thread. Harmless for a run not followed.
   */
  public void finish(String key) {
    Follower f = runs.remove(key);
    if (f == null) {
      return;
    }
    Instant deadline = clock.instant().plus(OutputFeed.FINAL_SEND_BUDGET);
    List<Send> sends;
    synchronized (f) {
      // A round already under way for this run ends before this; none starts after it.
      f.finished = true;
      f.drain();
      sends = f.feed.finalSends(f.progress());
    }
    for (Send s : sends) {
      Duration left = Duration.between(clock.instant(), deadline);
      if (left.isNegative() || left.isZero()) {
        LOG.info("the last live output of {} was cut off after 5 s", key);
        return;
      }
      try {
        sink.send(f.checkUri, f.space, s, left);
      } catch (IOException e) {
        LOG.info("the last live output of {} did not reach the appview: {}", key, e.getMessage());
        return;
      }
    }
  }

  private void tick() {
    Instant now = clock.instant();
    for (Follower f : runs.values()) {
      synchronized (f) {
        if (f.finished) {
          continue;
        }
        f.drain();
        if (!f.feed.dueNow() && now.isBefore(f.nextRound)) {
          continue;
        }
        OutputFeed.Round r =
            f.feed.round(f.progress(), s -> sink.send(f.checkUri, f.space, s, SEND_TIMEOUT));
        f.nextRound = now.plus(f.feed.interval());
        if (r.failure() != null) {
          LOG.debug("live output held for the next round: {}", r.failure().getMessage());
        }
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }

  /**
   * One run's feed and where it is. The executor's threads only queue what they hand over, so a run
   * never waits for a send; the feed is touched under the follower's monitor by the sending side.
   */
  private final class Follower implements RunListener {
    final String checkUri;
    final String space;
    final Instant startedAt;
    final OutputFeed feed =
        new OutputFeed(UnaryOperator.identity(), Pieces.MAX_PIECE_BYTES, new HoldBuffer());
    final java.util.Queue<Written> written = new java.util.concurrent.ConcurrentLinkedQueue<>();
    final List<String> ended = new ArrayList<>();
    volatile boolean moved;
    boolean finished;
    String going;
    Instant nextRound = Instant.MIN;

    record Written(long offset, byte[] bytes) {}

    Follower(String checkUri, String space, Instant startedAt) {
      this.checkUri = checkUri;
      this.space = space;
      this.startedAt = startedAt;
    }

    Progress progress() {
      synchronized (ended) {
        return new Progress(startedAt, ended, going);
      }
    }

    /** Moves what the run wrote into the feed; under the follower's monitor. */
    void drain() {
      for (Written w; (w = written.poll()) != null; ) {
        feed.feed(w.offset(), w.bytes());
      }
      if (moved) {
        moved = false;
        feed.progressChanged();
      }
    }

    // The log reaches listeners masked, so the feed's own mask has nothing left to do.
    @Override
    public void logWritten(long offset, byte[] bytes) {
      written.add(new Written(offset, bytes));
    }

    @Override
    public void stepStarted(StepStarted event) {
      synchronized (ended) {
        going = event.name();
      }
      moved = true;
      timer.execute(LiveOutput.this::tick);
    }

    @Override
    public void stepEnded(StepResult result, long logOffset) {
      synchronized (ended) {
        ended.add(result.name() + "=" + result.status().wire());
        going = null;
      }
      moved = true;
      timer.execute(LiveOutput.this::tick);
    }
  }
}
