package dev.knotless.runner.doorbell;

import java.util.Set;

/**
 * Which watched repositories one record change concerns, for one collection. A rule only picks
 * doors to ring; it never decides what runs. Rules must be pure and thread-safe: {@link
 * DoorMatcher} calls them from the sources' threads with an immutable {@link Watchlist}.
 */
@FunctionalInterface
public interface DoorRule {
  /**
   * The doors this change rings, empty for none. Only ids of repositories in {@code watched} may be
   * returned.
   */
  Set<RepoId> match(RecordChange change, Watchlist watched);
}
