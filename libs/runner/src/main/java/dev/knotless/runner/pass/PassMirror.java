package dev.knotless.runner.pass;

import dev.knotless.storage.Snapshot;
import dev.knotless.storage.fetch.Fetcher;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * A pass's mirror of its repository, synced with the pass's snapshot at most once, when first
 * needed: a pass that files nothing and runs no pull never touches it. Used by one pass, on its
 * thread.
 */
final class PassMirror {
  private final Path cacheDir;
  private final Watched repo;
  private final Supplier<Fetcher> fetcher;
  private final Snapshot snap;
  private Mirror mirror;
  private Mirror.Syncing syncing;

  PassMirror(Path cacheDir, Watched repo, Supplier<Fetcher> fetcher, Snapshot snap) {
    this.cacheDir = cacheDir;
    this.repo = repo;
    this.fetcher = fetcher;
    this.snap = snap;
  }

  /** The mirror with its sync begun: the newest packs in, the history check going on. */
  Mirror begun() throws IOException {
    if (mirror == null) {
      Mirror m = Mirror.open(cacheDir, repo.id().ownerDid(), repo.id().repoKey());
      syncing = m.begin(snap, fetcher.get());
      mirror = m;
    }
    return mirror;
  }

  /** The sync {@link #begun} began. */
  Mirror.Syncing syncing() throws IOException {
    begun();
    return syncing;
  }

  /** The mirror synced: its history checked and its refs set. */
  Mirror synced() throws IOException {
    syncing().await();
    return mirror;
  }

  /** Whether the pass began a sync. */
  boolean used() {
    return mirror != null;
  }

  /** Writes the commit-graph of a mirror the pass synced, once its refs are set. */
  void tidy() throws IOException {
    mirror.tidy(syncing.await());
  }
}
