package dev.knotless.runner.pass;

import dev.knotless.storage.Snapshot;
import dev.knotless.storage.Threads;
import dev.knotless.storage.fetch.Fetcher;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pass's mirror of its repository, synced with the pass's snapshot at most once, when first
 * needed: a pass that files nothing and runs no pull never touches it. Used by one pass, on its
 * thread.
 */
public final class PassMirror {
  private static final Logger LOG = LoggerFactory.getLogger(PassMirror.class);
  static final long TIDY_DELAY_MILLIS = 250;
  private static final ScheduledThreadPoolExecutor TIDY =
      new ScheduledThreadPoolExecutor(1, Threads.daemon("knotless-mirror-tidy"));
  private final Path cacheDir;
  private final Watched repo;
  private final Supplier<Fetcher> fetcher;
  private final Snapshot snap;
  private Mirror mirror;
  private Mirror.Syncing syncing;

  public PassMirror(Path cacheDir, Watched repo, Supplier<Fetcher> fetcher, Snapshot snap) {
    this.cacheDir = cacheDir;
    this.repo = repo;
    this.fetcher = fetcher;
    this.snap = snap;
  }

  /** The mirror with its sync begun: the newest packs in, the history check going on. */
  public Mirror begun() throws IOException {
    if (mirror == null) {
      Mirror m = Mirror.open(cacheDir, repo.id().ownerDid(), repo.id().repoKey());
      syncing = m.begin(snap, fetcher.get());
      mirror = m;
    }
    return mirror;
  }

  /** The sync {@link #begun} began. */
  public Mirror.Syncing syncing() throws IOException {
    begun();
    return syncing;
  }

  /** The mirror synced: its history checked and its refs set. */
  public Mirror synced() throws IOException {
    syncing().await();
    return mirror;
  }

  /** Whether the pass began a sync. */
  public boolean used() {
    return mirror != null;
  }

  /**
   * Writes the commit-graph of the mirror the pass synced, once its refs are set, {@value
   * #TIDY_DELAY_MILLIS} ms from now on another thread. The pass has just handed its runs on, and
   * each is about to be filed running: a git process started at that moment takes CPU from the PDS
   * answering, where the PDS shares the machine. Nothing waits for the graph; it only makes walks
   * of history faster. A failure is logged, and the next sync that moves a ref writes it again.
   */
  public void tidyLater() {
    Mirror m = mirror;
    Mirror.Syncing s = syncing;
    TIDY.schedule(
        () -> {
          try {
            m.tidy(s.await());
          } catch (IOException | RuntimeException e) {
            LOG.warn(
                "{}: could not write the mirror's commit-graph: {}", repo.label(), e.toString());
          }
        },
        TIDY_DELAY_MILLIS,
        TimeUnit.MILLISECONDS);
  }

  /**
   * Drops the commit-graph writes not yet begun and waits for the one under way, so that nothing
   * writes in a mirror once a runner has stopped. A dropped write is made by the next sync that
   * moves a ref.
   */
  public static void stopTidying() throws InterruptedException {
    for (Runnable queued : TIDY.getQueue()) {
      ((Future<?>) queued).cancel(false);
    }
    TIDY.purge();
    try {
      // One thread: this runs once the write under way, if any, is done.
      TIDY.submit(() -> {}).get(1, TimeUnit.MINUTES);
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("a commit-graph write did not end in a minute: {}", e.toString());
    }
  }
}
