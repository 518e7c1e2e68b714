package dev.knotless.runner.exec;

import dev.knotless.runner.exec.cache.CacheSettings;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.DiskFloor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What every executor that keeps caches does around a run: holds it at the disk floor before it
 * starts, and adds what became of its caches to the end of its log; and the cache flags they share.
 * Stateless.
 */
public final class CachedRuns {

  /** The flags of an executor that keeps caches. */
  public static final List<String> FLAGS = List.of("cache-dir", "cache-max", "disk-floor");

  private CachedRuns() {}

  /** The caches and the floor of an executor, as opened from its settings; both null for none. */
  public record Opened(CacheStore store, DiskFloor floor) {}

  /**
   * The cache flags of {@code c}: {@code --cache-dir}, {@code --cache-max}, {@code --disk-floor}.
   */
  public static CacheSettings settings(ExecutorConfig c) {
    CacheSettings none = CacheSettings.NONE;
    return new CacheSettings(
        c.text("cache-dir").map(dir -> Path.of(dir).toAbsolutePath()).orElse(none.dir()),
        c.wholeAbove0("cache-max", "GiB, such as 16")
            .map(g -> (long) g << 30)
            .orElse(none.maxBytes()),
        c.wholeFrom0("disk-floor", "GiB, such as 20, or 0 for no floor")
            .map(g -> g << 30)
            .orElse(none.floorBytes()));
  }

  /**
   * The store and floor {@code caches} ask for, both null when they keep none.
   *
   * @throws UncheckedIOException when the cache directory cannot be made
   */
  public static Opened open(CacheSettings caches) {
    if (!caches.enabled()) {
      return new Opened(null, null);
    }
    CacheStore store;
    try {
      store = new CacheStore(caches.dir(), caches.maxBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("could not make the cache directory " + caches.dir(), e);
    }
    return new Opened(store, new DiskFloor(store, caches.floorBytes(), DiskFloor.DEFAULT_INTERVAL));
  }

  /**
   * Holds the run until the caches' disk has {@code --disk-floor} free ({@code floor} null: no
   * floor); what was shed and how long it waited go at the top of its log. A cancel meanwhile lets
   * it go on, to end as cancelled.
   */
  public static RunSpec heldAtTheFloor(
      DiskFloor floor, RunSpec spec, RunCancellation cancellation) {
    if (floor == null) {
      return spec;
    }
    try {
      List<String> lines = floor.hold(cancellation::isCancelled);
      if (lines.isEmpty()) {
        return spec;
      }
      List<String> preamble = new ArrayList<>(spec.preamble());
      preamble.addAll(lines);
      return spec.withPreamble(preamble);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancellation.cancel("the runner's thread was interrupted");
      return spec;
    }
  }

  /** {@code r} with {@code lines} added at the end of its log (cache paths: nothing secret). */
  public static RunResult withLines(RunResult r, List<String> lines) {
    if (lines.isEmpty()) {
      return r;
    }
    byte[] more = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    byte[] log = Arrays.copyOf(r.log(), r.log().length + more.length);
    System.arraycopy(more, 0, log, r.log().length, more.length);
    return new RunResult(r.steps(), r.outcome(), log, r.outputs());
  }
}
