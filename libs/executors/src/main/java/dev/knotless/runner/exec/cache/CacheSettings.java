package dev.knotless.runner.exec.cache;

import java.nio.file.Path;

/**
 * Where the docker executor keeps caches and how large a base may grow, from the command line.
 * Immutable.
 *
 * @param dir {@code --cache-dir}, or null to keep no caches (a workflow's cache paths are then
 *     ignored); it must be on one file system, which the runner mounts overlays from as root
 * @param maxBytes {@code --cache-max}: a new base larger than this is not made current
 * @param floorBytes {@code --disk-floor}: the free bytes kept on the caches' disk before a run
 *     starts, 0 for no floor
 */
public record CacheSettings(Path dir, long maxBytes, long floorBytes) {

  /** No caches. */
  public static final CacheSettings NONE =
      new CacheSettings(null, CacheStore.DEFAULT_MAX_BYTES, DiskFloor.DEFAULT_FLOOR_BYTES);

  /** Checks the limits. */
  public CacheSettings {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("--cache-max must be above 0");
    }
    if (floorBytes < 0) {
      throw new IllegalArgumentException("--disk-floor may not be below 0");
    }
  }

  /** Whether caches are kept at all. */
  public boolean enabled() {
    return dir != null;
  }
}
