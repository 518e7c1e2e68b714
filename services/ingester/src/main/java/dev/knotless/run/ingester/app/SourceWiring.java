package dev.knotless.run.ingester.app;

import dev.knotless.run.ingester.domain.WatchedRepos;
import dev.knotless.runner.discover.Discoverer;
import dev.knotless.runner.doorbell.DoorClock;
import dev.knotless.runner.doorbell.DoorMatcher;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.DoorbellSink;
import dev.knotless.runner.doorbell.FirehoseSource;
import dev.knotless.runner.doorbell.JetstreamSource;
import dev.knotless.runner.doorbell.PullDoors;
import dev.knotless.runner.doorbell.SourceTimings;
import dev.knotless.runner.doorbell.WatchedRepo;
import dev.knotless.runner.doorbell.WebSocketSource;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.jboss.logging.Logger;

/** Turns the settings into the matcher of watched repositories and the one event source. */
@ApplicationScoped
public class SourceWiring {
  private static final Logger LOG = Logger.getLogger(SourceWiring.class);

  private final ScheduledExecutorService timers =
      Executors.newScheduledThreadPool(
          1,
          r -> {
            Thread t = new Thread(r, "ingester-timer");
            t.setDaemon(true);
            return t;
          });

  /** The clock of the source's silence watch and backoff, and of the sweep. */
  @Produces
  @Singleton
  DoorClock clock() {
    return DoorClock.of(timers);
  }

  @Produces
  @Singleton
  DoorMatcher matcher(IngesterConfig config, Provider<DoorbellSink> sink) {
    if (config.queue() && !config.pulls()) {
      throw new IllegalArgumentException(
          "knotless.ingester.queue needs knotless.ingester.pulls: the merge queue holds open pulls");
    }
    // The same rules as the all-in-one's --pulls and --queue.
    DoorMatcher matcher = new PullDoors(config.pulls(), config.queue()).addTo(new DoorMatcher());
    if (config.discover()) {
      matcher.addRule(
          DoorMatcher.REPO,
          Discoverer.ringUnwatched(id -> sink.get().ring(id, Doorbell.frame(DoorMatcher.REPO))));
    }
    if (!fixed(config)) {
      // The list comes from PostgreSQL (IngesterLifecycle), where the reconcilers keep it.
      return matcher;
    }
    List<WatchedRepo> repos = watched(config);
    if (repos.isEmpty()) {
      // An empty watch list would also leave Jetstream unfiltered: every account's records.
      throw new IllegalArgumentException(
          "knotless.ingester.repos or knotless.ingester.repos-file must name at least one"
              + " repository (<owner did>/<repo key>=<name>)");
    }
    repos.forEach(matcher::watch);
    LOG.infof("Watching %d repositories of %d owners", repos.size(), matcher.owners().size());
    return matcher;
  }

  /** True if the settings fix the list, rather than PostgreSQL holding it. */
  static boolean fixed(IngesterConfig config) {
    return config.repos().isPresent() || config.reposFile().isPresent();
  }

  @Produces
  @Singleton
  WebSocketSource source(
      IngesterConfig config, DoorMatcher matcher, DoorbellSink sink, DoorClock clock) {
    SourceTimings timings =
        new SourceTimings(
            config.silence(), config.firstBackoff(), config.maxBackoff(), config.connectTimeout());
    return switch (config.source()) {
      case JETSTREAM ->
          new JetstreamSource(
              config.jetstream(),
              matcher,
              sink,
              clock,
              timings,
              config
                  .cursorFile()
                  .<dev.knotless.runner.doorbell.CursorStore>map(
                      f ->
                          new dev.knotless.runner.doorbell.FileCursorStore(
                              f, java.time.Clock.systemUTC()))
                  .orElse(dev.knotless.runner.doorbell.CursorStore.NONE));
      case FIREHOSE ->
          new FirehoseSource(
              config
                  .firehose()
                  .orElseThrow(
                      () ->
                          new IllegalArgumentException(
                              "knotless.ingester.source=firehose needs knotless.ingester.firehose,"
                                  + " the PDS URL")),
              matcher,
              sink,
              clock,
              timings);
    };
  }

  void closeSource(@jakarta.enterprise.inject.Disposes WebSocketSource source) {
    source.close();
  }

  @PreDestroy
  void stop() {
    timers.shutdownNow();
  }

  static List<WatchedRepo> watched(IngesterConfig config) {
    List<WatchedRepo> listed =
        WatchedRepos.parse("knotless.ingester.repos", config.repos().orElse(List.of()));
    if (config.reposFile().isEmpty()) {
      return listed;
    }
    Path file = config.reposFile().get();
    try {
      return WatchedRepos.merge(
          listed,
          WatchedRepos.parseLines(
              file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new UncheckedIOException("knotless.ingester.repos-file " + file + " unreadable", e);
    }
  }
}
