package dev.knotless.run.ingester.app;

import dev.knotless.run.ingester.adapter.db.PullHeadRows;
import dev.knotless.run.ingester.adapter.db.WatchedRows;
import dev.knotless.run.ingester.domain.WatchChange;
import dev.knotless.runner.doorbell.DoorClock;
import dev.knotless.runner.doorbell.DoorMatcher;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.DoorbellSink;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WatchedRepo;
import dev.knotless.runner.doorbell.WebSocketSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Connects the source at startup (its connection rings every door) and rings every door again every
 * {@code sweep}, the backstop for frames a stream dropped. Unless the settings fix the list, it
 * reads the watched repositories from PostgreSQL every {@code watch-refresh}, rings a door as its
 * repository is added, and waits to connect until there is one to watch: an empty list is a state
 * to wait out, logged, not a failure. With pulls on it reads, as often, the heads of the watched
 * repositories' open pulls the reconcilers publish, and follows them.
 */
@ApplicationScoped
public class IngesterLifecycle {
  private static final Logger LOG = Logger.getLogger(IngesterLifecycle.class);

  private final WebSocketSource source;
  private final DoorbellSink sink;
  private final DoorClock clock;
  private final Duration sweep;
  private final DoorMatcher matcher;
  private final WatchedRows rows;
  private final PullHeadRows heads;
  private final boolean pulls;
  private final boolean fixed;
  private final boolean discover;
  private final Duration refresh;
  private volatile DoorClock.Cancellable next;
  private volatile DoorClock.Cancellable nextRead;
  private volatile boolean stopped;
  private boolean connected;
  private String lastSaid = "";

  public IngesterLifecycle(
      WebSocketSource source,
      DoorbellSink sink,
      DoorClock clock,
      IngesterConfig config,
      DoorMatcher matcher,
      WatchedRows rows,
      PullHeadRows heads) {
    this.source = source;
    this.sink = sink;
    this.clock = clock;
    this.sweep = config.sweep();
    this.matcher = matcher;
    this.rows = rows;
    this.heads = heads;
    this.pulls = config.pulls();
    this.fixed = SourceWiring.fixed(config);
    this.discover = config.discover();
    this.refresh = config.watchRefresh();
    if (sweep.isZero() || sweep.isNegative()) {
      throw new IllegalArgumentException(
          "knotless.ingester.sweep must be a positive duration, got " + sweep);
    }
  }

  void start(@Observes StartupEvent event) {
    LOG.infof("Ingester follows %s; sweep every %s", source.getClass().getSimpleName(), sweep);
    if (fixed || discover) {
      // With discovery, a repository record written by anyone must be heard from the start, so
      // one created before anything is watched is found by its frame.
      connect();
    }
    if (!fixed) {
      readWatched();
    }
    scheduleSweep();
  }

  private synchronized void connect() {
    if (!connected) {
      connected = true;
      source.start();
    }
  }

  /** Takes the list again from PostgreSQL; called every {@code watch-refresh}. */
  private void readWatched() {
    try {
      Optional<List<WatchedRepo>> read;
      try {
        read = rows.all();
      } catch (SQLException e) {
        say("The watched repositories cannot be read from PostgreSQL: " + e.getMessage());
        return;
      }
      List<WatchedRepo> now = read.orElse(List.of());
      WatchChange change = WatchChange.between(matcher.watched().all(), now);
      change.removed().forEach(matcher::unwatch);
      change.added().forEach(matcher::watch);
      if (pulls) {
        // After the list, so a head is followed only for a base watched now.
        readPullHeads();
      }
      if (now.isEmpty()) {
        say(
            read.isEmpty()
                ? "No reconciler has made the list of watched repositories yet; waiting"
                : "No repository is watched: none is listed and discovery found none; waiting");
        return;
      }
      if (!change.none()) {
        say(
            "Watching "
                + now.size()
                + " repositories of "
                + matcher.owners().size()
                + " owners (+"
                + change.added().size()
                + " -"
                + change.removed().size()
                + ")");
      }
      boolean first;
      synchronized (this) {
        first = !connected;
      }
      if (first) {
        connect(); // its connection rings every door
      } else {
        change.added().forEach(r -> sink.ring(r.id(), Doorbell.connect("listed")));
      }
    } finally {
      if (!stopped) {
        nextRead = clock.schedule(refresh, this::readWatched);
      }
    }
  }

  /** Follows the heads the reconcilers published for the watched repositories' open pulls. */
  private void readPullHeads() {
    Map<RepoId, Set<RepoId>> published;
    try {
      published = heads.all();
    } catch (SQLException e) {
      say("The pulls' heads cannot be read from PostgreSQL: " + e.getMessage());
      return;
    }
    Map<RepoId, Set<RepoId>> watched = new LinkedHashMap<>();
    published.forEach(
        (base, hs) -> {
          if (matcher.watched().find(base).isPresent()) {
            watched.put(base, hs);
          }
        });
    if (!watched.equals(matcher.pullHeads())) {
      matcher.followAllPullHeads(watched);
      LOG.infof(
          "Following %d pull heads in other repositories, of %d watched repositories",
          watched.values().stream().mapToInt(Set::size).sum(), watched.size());
    }
  }

  private void say(String what) {
    // Said once until it changes, not every few seconds.
    if (!what.equals(lastSaid)) {
      lastSaid = what;
      LOG.info(what);
    }
  }

  /** True while there is nothing to watch yet, so the source has not connected. */
  public boolean waiting() {
    return !fixed && !discover && matcher.watched().size() == 0;
  }

  void stop(@Observes ShutdownEvent event) {
    stopped = true;
    DoorClock.Cancellable pending = next;
    if (pending != null) {
      pending.cancel();
    }
    DoorClock.Cancellable reading = nextRead;
    if (reading != null) {
      reading.cancel();
    }
    source.close();
  }

  private void scheduleSweep() {
    if (!stopped) {
      next = clock.schedule(sweep, this::sweepNow);
    }
  }

  private void sweepNow() {
    // Scheduled one at a time, so a slow sweep delays the next rather than overlapping it.
    try {
      sink.ringAll(Doorbell.SWEEP);
    } finally {
      scheduleSweep();
    }
  }
}
