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
 * LocalCache}, which writes every file through a temporary file and a rename. Thread-safe.
 */
public final class StorageCache {
  private final LocalCache cache;

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
    return cache.repoKey(repo.did(), repo.name());
  }

  /** Remembers (or, with null, forgets) a repository's key. */
  public void putKey(RepoAddress repo, String key) {
    if (key == null) {
      cache.removeRepoKey(repo.did(), repo.name());
    } else {
      cache.putRepoKey(repo.did(), repo.name(), key);
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
