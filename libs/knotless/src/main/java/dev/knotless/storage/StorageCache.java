package dev.knotless.storage;

import dev.knotless.atproto.cache.LocalCache;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * The parts of the shared local cache storage uses: repository keys ({@code keys.json}), blob
 * limits ({@code servers.json}, an hour) and the mirrors directory. A thin view over {@link
 * LocalCache}, which writes every file through a temporary file and a rename.
 *
 * <p>Keys read or written are also kept in memory, so a runner watching thousands of repositories
 * does not read and parse the whole file at every pass, and writes that arrive while one is being
 * written go out together in the next, so a start that learns thousands of keys does not rewrite
 * the file thousands of times. A key is only a guess at what a name means (every snapshot checks it
 * against the repo record), so one another process changed in the file meanwhile costs at most a
 * round trip. Thread-safe.
 */
public final class StorageCache {
  private final LocalCache cache;

  /** Keys by {@code <did>/<name>}, as this process last read or wrote them. */
  private final java.util.concurrent.ConcurrentHashMap<String, String> keys =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Keys to write ({@code ""}: to remove), guarded by itself. */
  private final Map<String, String> unwritten = new java.util.LinkedHashMap<>();

  private boolean writing;

  public StorageCache(LocalCache cache) {
    this.cache = cache;
  }

  /** A cache in {@code dir}, as tests use. */
  public static StorageCache at(Path dir, Clock clock) {
    return new StorageCache(new LocalCache(dir, clock));
  }

  /** The cache directory the environment names ({@code KNOTLESS_CACHE_DIR}, XDG, ~/.cache). */
  public static StorageCache fromEnvironment(Map<String, String> env, Clock clock) {
    return new StorageCache(LocalCache.fromEnvironment(env, clock));
  }

  public LocalCache local() {
    return cache;
  }

  public Path dir() {
    return cache.dir();
  }

  /** The key cached for a repository, if any. */
  public Optional<String> key(RepoAddress repo) {
    String id = repo.did() + "/" + repo.name();
    String known = keys.get(id);
    if (known != null) {
      return known.isEmpty() ? Optional.empty() : Optional.of(known);
    }
    Optional<String> stored = cache.repoKey(repo.did(), repo.name());
    stored.ifPresent(k -> keys.putIfAbsent(id, k));
    return stored;
  }

  /** Remembers (or, with null, forgets) a repository's key. */
  public void putKey(RepoAddress repo, String key) {
    String id = repo.did() + "/" + repo.name();
    String value = key == null ? "" : key;
    if (value.equals(keys.put(id, value))) {
      return;
    }
    synchronized (unwritten) {
      unwritten.put(id, value);
      if (writing) {
        // The write under way writes it next, with whatever else arrives meanwhile.
        return;
      }
      writing = true;
    }
    writeUnwritten();
  }

  private void writeUnwritten() {
    while (true) {
      Map<String, String> batch;
      synchronized (unwritten) {
        if (unwritten.isEmpty()) {
          writing = false;
          return;
        }
        batch = new java.util.LinkedHashMap<>(unwritten);
        unwritten.clear();
      }
      try {
        Map<String, com.fasterxml.jackson.databind.JsonNode> put = new java.util.HashMap<>();
        batch.forEach(
            (id, k) -> {
              if (k.isEmpty()) {
                cache.remove(dev.knotless.atproto.cache.CacheFile.KEYS, id);
              } else {
                put.put(id, com.fasterxml.jackson.databind.node.TextNode.valueOf(k));
              }
            });
        if (!put.isEmpty()) {
          cache.put(dev.knotless.atproto.cache.CacheFile.KEYS, put);
        }
      } catch (RuntimeException e) {
        synchronized (unwritten) {
          writing = false;
        }
        throw e;
      }
    }
  }

  /** A PDS's blob limit remembered within the last hour, if any. */
  public Optional<Long> blobLimit(URI pds) {
    return cache.blobUploadLimit(pds);
  }

  public void putBlobLimit(URI pds, long limit) {
    cache.putBlobUploadLimit(pds, limit);
  }
}
