package dev.knotless.runner.exec.cache;

import java.nio.file.Path;

/**
 * Where the docker executor keeps caches and how large a base may grow, from the command line.
 * Immutable.
 *
 * @param dir {@code --cache-dir}, or null to keep no caches (a workflow's cache paths are then
 *     ignored); it must be on one file system, which the runner mounts overlays from as root
 * @param maxBytes {@code --cache-max}: a new base larger than this is not made current
 */
public record CacheSettings(Path dir, long maxBytes) {

  /** No caches. */
  public static final CacheSettings NONE = new CacheSettings(null, CacheStore.DEFAULT_MAX_BYTES);

  /** Checks the limit. */
  public CacheSettings {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("--cache-max must be above 0");
    }
  }

  /** Whether caches are kept at all. */
  public boolean enabled() {
    return dir != null;
  }
}
