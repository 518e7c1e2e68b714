package dev.knotless.atproto.cache;

import java.time.Duration;
import java.util.Optional;

/**
 * The JSON files of the local cache, with how long an entry stays good. An entry past its lifetime
 * reads as absent; it is overwritten by the next put.
 */
public enum CacheFile {
  /** Handle or DID to DID and PDS. An hour, or until that PDS says the account is not there. */
  IDENTITY("identity.json", Duration.ofHours(1)),
  /** DID to verified handle. An hour. */
  HANDLES("handles.json", Duration.ofHours(1)),
  /** {@code <did>/<name>} (or {@code <did>/#space}) to repository key. Kept; snapshots check it. */
  KEYS("keys.json", null),
  /** PDS to the blob upload limit it advertises. An hour. */
  SERVERS("servers.json", Duration.ofHours(1)),
  /** DIDs whose email claim was looked up. Kept. */
  EMAILS("emails.json", null);

  private final String fileName;
  private final Duration lifetime;

  CacheFile(String fileName, Duration lifetime) {
    this.fileName = fileName;
    this.lifetime = lifetime;
  }

  /** The file's name inside the cache directory. */
  public String fileName() {
    return fileName;
  }

  /** How long an entry stays good; empty for entries kept until replaced. */
  public Optional<Duration> lifetime() {
    return Optional.ofNullable(lifetime);
  }
}
