package dev.knotless.runner.doorbell;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which watched repositories' doors a record change rings. The wiring feeds it the watched
 * repositories ({@link #watch}, {@link #unwatch}); the event sources hand it every change they
 * parse ({@link #match}).
 *
 * <p>Out of the box it rings for the three collections the runner reads on every pass:
 *
 * <ul>
 *   <li>{@code dev.knotless.ref} and {@code dev.knotless.rerun} of the owner's whose record key
 *       starts with {@code <repo key>.};
 *   <li>{@code dev.knotless.repo} of the owner's whose record key is a watched repository's name.
 * </ul>
 *
 * Any other collection rings nothing until a rule for it is added with {@link #addRule}; {@link
 * PullDoors} adds those of pulls, their states and the merge queue. A ref moving in a followed pull
 * head ({@link #followPullHeads}) rings the pull's base. A change for a repository nobody watches
 * rings nothing.
 *
 * <p>Thread-safe: the watched set is an immutable {@link Watchlist} swapped on every change, so
 * matching takes no lock.
 */
public final class DoorMatcher {
  /** Where a ref points: keyed {@code <repo key>.<h(ref)>}. */
  public static final String REF = "dev.knotless.ref";

  /** A request to run a commit again: keyed {@code <repo key>.<...>}. */
  public static final String RERUN = "dev.knotless.rerun";

  /** A repository's own record: keyed by its name. */
  public static final String REPO = "dev.knotless.repo";

  /** A pull: keyed {@code <base repo key>.<tid>} in its author's account (matched with --pulls). */
  public static final String PULL = "dev.knotless.pull";

  /** A pull's state: keyed {@code <base repo key>.<tid>} (matched with --pulls). */
  public static final String STATE = "dev.knotless.state";

  /** A merge-queue entry: keyed {@code <base repo key>.<tid>} (matched with --queue). */
  public static final String QUEUE = "dev.knotless.queue";

  private static final Logger LOG = LoggerFactory.getLogger(DoorMatcher.class);

  private final Object lock = new Object();
  private volatile Watchlist watched = Watchlist.empty();
  private volatile Map<String, DoorRule> rules;
  private final List<Runnable> ownerListeners = new CopyOnWriteArrayList<>();
  private volatile Map<RepoId, Set<RepoId>> pullHeads = Map.of();

  /** A matcher with the ref, rerun and repo rules and nothing watched. */
  public DoorMatcher() {
    Map<String, DoorRule> defaults = new LinkedHashMap<>();
    defaults.put(REF, DoorMatcher::byKeyPrefix);
    defaults.put(RERUN, DoorMatcher::byKeyPrefix);
    defaults.put(REPO, DoorMatcher::byName);
    this.rules = Map.copyOf(defaults);
  }

  /**
   * Watches a repository, or updates its name if its id is already watched (after a rename).
   * Listeners registered with {@link #onOwnersChanged} run if this adds an owner.
   */
  public void watch(WatchedRepo repo) {
    boolean newOwner;
    synchronized (lock) {
      Watchlist before = watched;
      newOwner = !before.owners().contains(repo.id().ownerDid());
      List<WatchedRepo> repos = new ArrayList<>(before.all());
      repos.removeIf(r -> r.id().equals(repo.id()));
      repos.add(repo);
      watched = Watchlist.of(repos);
    }
    if (newOwner) {
      ownerListeners.forEach(Runnable::run);
    }
  }

  /** Stops matching changes to this repository. Does nothing if it is not watched. */
  public void unwatch(RepoId id) {
    boolean ownerGone;
    synchronized (lock) {
      Watchlist before = watched;
      List<WatchedRepo> repos = new ArrayList<>(before.all());
      if (!repos.removeIf(r -> r.id().equals(id))) {
        return;
      }
      watched = Watchlist.of(repos);
      ownerGone = !watched.owners().contains(id.ownerDid());
    }
    if (ownerGone) {
      ownerListeners.forEach(Runnable::run);
    }
  }

  /** The watched repositories now. */
  public Watchlist watched() {
    return watched;
  }

  /**
   * The DIDs owning watched repositories now, and those owning the head repositories of their open
   * pulls: what a source filters its subscription to.
   */
  public Set<String> owners() {
    Map<RepoId, Set<RepoId>> heads = pullHeads;
    if (heads.isEmpty()) {
      return watched.owners();
    }
    Set<String> out = new LinkedHashSet<>(watched.owners());
    heads.values().forEach(hs -> hs.forEach(h -> out.add(h.ownerDid())));
    return out;
  }

  /**
   * Follows the head repositories of a watched repository's open pulls ({@code heads}, those in
   * other repositories; empty to follow none): a ref moving in one rings {@code base}'s door, so a
   * push to a fork reruns its pull without waiting for the sweep. Listeners registered with {@link
   * #onOwnersChanged} run if this changes {@link #owners()}.
   */
  public void followPullHeads(RepoId base, Set<RepoId> heads) {
    replacePullHeads(
        now -> {
          Map<RepoId, Set<RepoId>> next = new LinkedHashMap<>(now);
          if (heads.isEmpty()) {
            next.remove(base);
          } else {
            next.put(base, Set.copyOf(heads));
          }
          return next;
        });
  }

  /**
   * Follows exactly these pull heads, by base repository, and no others: what a process that learns
   * every base's heads at once (the ingester, from the reconcilers' table) calls on each read. A
   * base left out follows none. Listeners run once if {@link #owners()} changed.
   */
  public void followAllPullHeads(Map<RepoId, Set<RepoId>> byBase) {
    replacePullHeads(
        now -> {
          Map<RepoId, Set<RepoId>> next = new LinkedHashMap<>();
          byBase.forEach(
              (base, heads) -> {
                if (!heads.isEmpty()) {
                  next.put(base, Set.copyOf(heads));
                }
              });
          return next;
        });
  }

  /** The pull heads followed now, by base repository. */
  public Map<RepoId, Set<RepoId>> pullHeads() {
    return pullHeads;
  }

  private void replacePullHeads(java.util.function.UnaryOperator<Map<RepoId, Set<RepoId>>> change) {
    Set<String> before;
    Set<String> after;
    synchronized (lock) {
      before = owners();
      pullHeads = Map.copyOf(change.apply(pullHeads));
      after = owners();
    }
    if (!before.equals(after)) {
      ownerListeners.forEach(Runnable::run);
    }
  }

  /** The collections some rule matches: what a source subscribes to. */
  public Set<String> collections() {
    return rules.keySet();
  }

  /**
   * Adds (or replaces) the rule for one collection ({@link PullDoors} adds those of pulls, states
   * and the merge queue); a source subscribed before the call picks the collection up on its next
   * connection.
   */
  public void addRule(String collection, DoorRule rule) {
    synchronized (lock) {
      Map<String, DoorRule> next = new LinkedHashMap<>(rules);
      next.put(collection, rule);
      rules = Map.copyOf(next);
    }
  }

  /**
   * Runs {@code listener} whenever the set of {@link #owners()} changes, on the thread that changed
   * it. A source uses it to narrow or widen its subscription.
   */
  public void onOwnersChanged(Runnable listener) {
    ownerListeners.add(listener);
  }

  /** The doors this change rings: empty for a collection without a rule or an unwatched repo. */
  public Set<RepoId> match(RecordChange change) {
    DoorRule rule = rules.get(change.collection());
    if (rule == null) {
      LOG.trace("no rule for {}, ignoring {}", change.collection(), change);
      return Set.of();
    }
    Watchlist now = watched;
    Set<RepoId> doors = rule.match(change, now);
    if (change.collection().equals(REF) && !pullHeads.isEmpty()) {
      doors = new LinkedHashSet<>(doors);
      for (Map.Entry<RepoId, Set<RepoId>> e : pullHeads.entrySet()) {
        for (RepoId head : e.getValue()) {
          if (head.ownerDid().equals(change.did())
              && change.rkey().startsWith(head.recordKeyPrefix())
              && now.find(e.getKey()).isPresent()) {
            doors.add(e.getKey());
          }
        }
      }
    }
    for (RepoId door : doors) {
      if (now.find(door).isEmpty()) {
        throw new IllegalStateException(
            "rule for " + change.collection() + " named " + door + ", which is not watched");
      }
    }
    return doors;
  }

  /** Refs and reruns: the owner's records whose key starts with a watched repo's key and a dot. */
  static Set<RepoId> byKeyPrefix(RecordChange change, Watchlist watched) {
    Set<RepoId> doors = new LinkedHashSet<>();
    for (WatchedRepo repo : watched.ofOwner(change.did())) {
      if (change.rkey().startsWith(repo.id().recordKeyPrefix())) {
        doors.add(repo.id());
      }
    }
    return doors;
  }

  /**
   * Pulls and states: anyone's record whose key starts with a watched repo's key and a dot. Anyone
   * may write one, and a frame is unsigned anyway: a ring only makes the pass read.
   */
  public static Set<RepoId> byKeyPrefixOfAnyone(RecordChange change, Watchlist watched) {
    Set<RepoId> doors = new LinkedHashSet<>();
    for (WatchedRepo repo : watched.all()) {
      if (change.rkey().startsWith(repo.id().recordKeyPrefix())) {
        doors.add(repo.id());
      }
    }
    return doors;
  }

  /** Repo records: the owner's record keyed by a watched repo's name. */
  static Set<RepoId> byName(RecordChange change, Watchlist watched) {
    Set<RepoId> doors = new LinkedHashSet<>();
    for (WatchedRepo repo : watched.ofOwner(change.did())) {
      if (change.rkey().equals(repo.name())) {
        doors.add(repo.id());
      }
    }
    return doors;
  }
}
