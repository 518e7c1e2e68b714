package dev.knotless.runner.doorbell;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An immutable snapshot of the watched repositories, indexed by owner, that {@link DoorRule}s match
 * frames against. Thread-safe: it never changes; {@link DoorMatcher} swaps in a new one.
 */
public final class Watchlist {
  private static final Watchlist EMPTY = new Watchlist(List.of());

  private final Map<RepoId, WatchedRepo> byId;
  private final Map<String, List<WatchedRepo>> byOwner;

  private Watchlist(Collection<WatchedRepo> repos) {
    Map<RepoId, WatchedRepo> ids = new LinkedHashMap<>();
    Map<String, List<WatchedRepo>> owners = new LinkedHashMap<>();
    for (WatchedRepo repo : repos) {
      ids.put(repo.id(), repo);
      owners.computeIfAbsent(repo.id().ownerDid(), did -> new ArrayList<>()).add(repo);
    }
    owners.replaceAll((did, list) -> List.copyOf(list));
    this.byId = Map.copyOf(ids);
    this.byOwner = Map.copyOf(owners);
  }

  /** A watchlist of no repositories. */
  public static Watchlist empty() {
    return EMPTY;
  }

  /** A watchlist of these repositories; a later entry with the same id replaces an earlier one. */
  public static Watchlist of(Collection<WatchedRepo> repos) {
    return new Watchlist(repos);
  }

  /** Every watched repository. */
  public Collection<WatchedRepo> all() {
    return byId.values();
  }

  /** The watched repositories of one owner, empty if none. */
  public List<WatchedRepo> ofOwner(String did) {
    return byOwner.getOrDefault(did, List.of());
  }

  /** The watched repository with this id, if watched. */
  public Optional<WatchedRepo> find(RepoId id) {
    return Optional.ofNullable(byId.get(id));
  }

  /** The DIDs that own at least one watched repository. */
  public Set<String> owners() {
    return byOwner.keySet();
  }

  /** How many repositories are watched. */
  public int size() {
    return byId.size();
  }
}
