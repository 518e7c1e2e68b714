package dev.knotless.runner.engine;

import dev.knotless.runner.discover.Discoverer;
import dev.knotless.runner.doorbell.DoorMatcher;
import dev.knotless.runner.doorbell.Doorbell;
import dev.knotless.runner.doorbell.Doors;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WatchedRepo;
import dev.knotless.runner.pass.Watched;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * The repositories the all-in-one watches, each with its door open and its events matched: those
 * named at the start and those {@code --discover} finds. Taking one on opens its door and has the
 * matcher follow it; dropping one closes its door. Nothing is taken on once {@code stopping} says
 * so. Thread-safe.
 */
final class WatchList implements Discoverer.Watcher {

  private final Map<RepoId, Watched> watched = new ConcurrentHashMap<>();
  private final DoorMatcher matcher;
  private final Doors doors;
  private final BooleanSupplier stopping;

  /** Watches {@code repos}, opening their doors, without ringing them. */
  WatchList(List<Watched> repos, DoorMatcher matcher, Doors doors, BooleanSupplier stopping) {
    this.matcher = matcher;
    this.doors = doors;
    this.stopping = stopping;
    for (Watched w : repos) {
      watched.put(w.id(), w);
      matcher.watch(new WatchedRepo(w.id(), w.address().name()));
      doors.open(w.id());
    }
  }

  /** The repository watched as {@code id}, or null. */
  Watched get(RepoId id) {
    return watched.get(id);
  }

  /** Rings, as asked, the door of each repository whose state is kept under {@code stateKey}. */
  void ringAsked(String stateKey) {
    watched.values().stream()
        .filter(w -> w.stateKey().equals(stateKey))
        .forEach(w -> doors.ring(w.id(), Doorbell.ASKED));
  }

  /**
   * Stops watching {@code id} and closes its door; {@code unmatched} also has the matcher stop
   * following it.
   */
  void drop(RepoId id, boolean unmatched) {
    watched.remove(id);
    if (unmatched) {
      matcher.unwatch(id);
    }
    doors.close(id);
  }

  @Override
  public boolean watching(RepoId id) {
    return watched.containsKey(id);
  }

  @Override
  public void watch(Watched w) {
    if (stopping.getAsBoolean() || watched.putIfAbsent(w.id(), w) != null) {
      return;
    }
    matcher.watch(new WatchedRepo(w.id(), w.address().name()));
    doors.open(w.id());
    doors.ring(w.id(), Doorbell.connect("found"));
  }

  @Override
  public void rewatch(Watched w) {
    if (stopping.getAsBoolean() || watched.replace(w.id(), w) == null) {
      return;
    }
    matcher.watch(new WatchedRepo(w.id(), w.address().name()));
    doors.ring(w.id(), Doorbell.connect("renamed"));
  }
}
