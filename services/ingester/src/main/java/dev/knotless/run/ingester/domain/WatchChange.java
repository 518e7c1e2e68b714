package dev.knotless.run.ingester.domain;

import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.doorbell.WatchedRepo;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a new read of the watched list changes: repositories to start watching (new, or renamed:
 * same key, new name) and those to stop. Pure.
 *
 * @param added watched from now on; their doors are rung once
 * @param removed no longer watched
 */
public record WatchChange(List<WatchedRepo> added, List<RepoId> removed) {

  /** From {@code before} to {@code after}. */
  public static WatchChange between(Collection<WatchedRepo> before, Collection<WatchedRepo> after) {
    Map<RepoId, WatchedRepo> was = new HashMap<>();
    before.forEach(r -> was.put(r.id(), r));
    List<WatchedRepo> added = new ArrayList<>();
    Map<RepoId, WatchedRepo> now = new HashMap<>();
    for (WatchedRepo r : after) {
      now.put(r.id(), r);
      if (!r.equals(was.get(r.id()))) {
        added.add(r);
      }
    }
    List<RepoId> removed = new ArrayList<>();
    for (RepoId id : was.keySet()) {
      if (!now.containsKey(id)) {
        removed.add(id);
      }
    }
    return new WatchChange(List.copyOf(added), List.copyOf(removed));
  }

  /** True if nothing changed. */
  public boolean none() {
    return added.isEmpty() && removed.isEmpty();
  }
}
