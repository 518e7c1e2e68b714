package dev.knotless.run.reconciler.app;

import dev.knotless.run.reconciler.adapter.db.PullHeadsTable;
import dev.knotless.run.reconciler.adapter.db.WatchedTable;
import dev.knotless.runner.discover.Discoverer;
import dev.knotless.runner.doorbell.RepoId;
import dev.knotless.runner.pass.Watched;
import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * This reconciler's view of the one list of watched repositories, {@code watched_repo}: those read
 * so far by label, and the rest taken from the table when a doorbell names them. Any replica that
 * lists or finds a repository writes it there, so the ingester rings its door and whichever
 * reconciler Kafka gives its partition reads it. Thread-safe.
 */
public final class Watching implements Discoverer.Watcher {
  private static final Logger LOG = Logger.getLogger(Watching.class);

  /** Reads a repository by label from its owner's PDS. */
  @FunctionalInterface
  public interface Reader {
    Watched read(String label) throws IOException;
  }

  private final WatchedTable table;
  private final PullHeadsTable heads;
  private final Reader reader;
  private final Consumer<RepoId> ring;
  private final Map<RepoId, Watched> read = new ConcurrentHashMap<>();
  private final Set<RepoId> discovered = ConcurrentHashMap.newKeySet();
  private volatile Discoverer discoverer;
  private volatile Consumer<RepoId> leavingSpace = id -> {};

  Watching(WatchedTable table, PullHeadsTable heads, Reader reader, Consumer<RepoId> ring) {
    this.table = table;
    this.heads = heads;
    this.reader = reader;
    this.ring = ring;
  }

  /** Tells {@code forget} of each repository left, so a private one's space is asked no more. */
  void leavingSpaces(Consumer<RepoId> forget) {
    this.leavingSpace = forget;
  }

  void discoverWith(Discoverer d) {
    this.discoverer = d;
  }

  /** Keeps a listed repository read at start. */
  void listed(Watched w) throws SQLException {
    listed(List.of(w));
  }

  /** As {@link #listed(Watched)} for many, written to the table in one batch. */
  void listed(List<Watched> ws) throws SQLException {
    List<WatchedTable.Row> rows = new java.util.ArrayList<>();
    for (Watched w : ws) {
      read.put(w.id(), w);
      rows.add(new WatchedTable.Row(w.id(), w.address().name(), WatchedTable.LISTED));
    }
    table.putListed(rows);
  }

  /** Every repository watched, this replica's and the table's. */
  public Set<RepoId> ids() {
    Set<RepoId> ids = new java.util.HashSet<>(read.keySet());
    try {
      table.all().forEach(r -> ids.add(r.id()));
    } catch (SQLException e) {
      LOG.warnf("the watched repositories could not be read from PostgreSQL: %s", e.getMessage());
    }
    return ids;
  }

  /**
   * The repository a doorbell names: read before, or taken from the table and read now. One the
   * table does not hold either is looked for by discovery, when on, and otherwise passed over.
   */
  public Optional<Watched> get(RepoId id) throws IOException {
    Watched w = read.get(id);
    if (w != null) {
      return Optional.of(w);
    }
    Optional<WatchedTable.Row> row;
    try {
      row = table.find(id);
    } catch (SQLException e) {
      throw new IOException("the watched repositories cannot be read: " + e.getMessage(), e);
    }
    if (row.isEmpty()) {
      if (discoverer != null) {
        discoverer.lookFor(id);
      }
      return Optional.empty();
    }
    Watched fresh = reader.read(row.get().label());
    if (!fresh.id().equals(id)) {
      // Renamed, or a new repository under the old name: the pass of the old key finds it gone.
      LOG.infof("%s: now %s, not %s", row.get().label(), fresh.id(), id);
    }
    if (WatchedTable.DISCOVERED.equals(row.get().how())) {
      discovered.add(id);
    }
    read.put(id, fresh);
    return Optional.of(fresh);
  }

  /** True if the repository was read here, and in its owner's space: a private one. */
  public boolean readPrivate(RepoId id) {
    Watched w = read.get(id);
    return w != null && w.privateRepo();
  }

  /** True if the repository was found naming the runner rather than listed. */
  public boolean found(RepoId id) {
    return discovered.contains(id);
  }

  /**
   * A found repository a pass saw renamed: discovery finds it again by its key and {@link
   * #rewatch}es it under its new name.
   *
   * @return false when it is gone or no longer names the runner (the caller leaves it)
   */
  public boolean refind(Watched w) throws IOException {
    return discoverer != null && discoverer.refind(w);
  }

  /** Stops watching a repository a pass left or found deleted. */
  public void leave(RepoId id) {
    read.remove(id);
    leavingSpace.accept(id);
    discovered.remove(id);
    if (discoverer != null) {
      discoverer.forget(id);
    }
    try {
      table.remove(id);
    } catch (SQLException e) {
      LOG.warnf("%s: could not be taken off the watched list: %s", id, e.getMessage());
    }
    heads.forget(id);
  }

  @Override
  public boolean watching(RepoId id) {
    if (read.containsKey(id)) {
      return true;
    }
    try {
      return table.find(id).isPresent();
    } catch (SQLException e) {
      LOG.warnf("the watched repositories could not be read from PostgreSQL: %s", e.getMessage());
      return true;
    }
  }

  @Override
  public void watch(Watched w) {
    try {
      table.put(w.id(), w.address().name(), WatchedTable.DISCOVERED);
    } catch (SQLException e) {
      LOG.warnf("%s: found, but could not be listed: %s", w.label(), e.getMessage());
      return;
    }
    discovered.add(w.id());
    read.put(w.id(), w);
    ring.accept(w.id());
  }

  /** The row keeps its key and takes the new name, which the ingester rings the door by. */
  @Override
  public void rewatch(Watched w) {
    try {
      table.put(w.id(), w.address().name(), WatchedTable.DISCOVERED);
    } catch (SQLException e) {
      LOG.warnf("%s: renamed, but its new name could not be listed: %s", w.label(), e.getMessage());
    }
    read.put(w.id(), w);
    ring.accept(w.id());
  }
}
