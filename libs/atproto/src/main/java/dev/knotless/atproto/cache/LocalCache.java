package dev.knotless.atproto.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The client's local cache: small JSON files (see {@link CacheFile}) that let a warm operation skip
 * identity lookups and the repository-key read, shared by every process of the user.
 *
 * <p>The cache directory is {@code KNOTLESS_CACHE_DIR}, else {@code $XDG_CACHE_HOME/knotless}, else
 * {@code ~/.cache/knotless}. Sessions are not cache: they live in the config directory (see {@link
 * SessionStore}). Every file is rewritten whole through a temporary file and a rename, so readers
 * never see half a file, and updates hold a lock so concurrent writers keep each other's entries. A
 * missing or unreadable file reads as empty; a write that fails throws {@link
 * java.io.UncheckedIOException}.
 *
 * <p>Each entry is stored as {@code {"at": <epoch millis>, "value": …}}; {@link #get} returns the
 * value while it is younger than its file's lifetime, measured with the injected clock.
 * Thread-safe.
 */
public final class LocalCache {
  private final Path dir;
  private final Clock clock;

  public LocalCache(Path dir, Clock clock) {
    this.dir = Objects.requireNonNull(dir, "dir");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** The cache the environment names ({@code System.getenv()} in production). */
  public static LocalCache fromEnvironment(Map<String, String> env, Clock clock) {
    return new LocalCache(cacheDir(env), clock);
  }

  /** {@code KNOTLESS_CACHE_DIR}, else {@code $XDG_CACHE_HOME/knotless}, else ~/.cache/knotless. */
  public static Path cacheDir(Map<String, String> env) {
    return dirFrom(env, "KNOTLESS_CACHE_DIR", "XDG_CACHE_HOME", ".cache");
  }

  /**
   * {@code KNOTLESS_CONFIG_DIR}, else {@code $XDG_CONFIG_HOME/knotless}, else ~/.config/knotless.
   */
  public static Path configDir(Map<String, String> env) {
    return dirFrom(env, "KNOTLESS_CONFIG_DIR", "XDG_CONFIG_HOME", ".config");
  }

  private static Path dirFrom(Map<String, String> env, String own, String xdg, String dotDir) {
    String explicit = env.get(own);
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit);
    }
    String base = env.get(xdg);
    if (base != null && !base.isBlank()) {
      return Path.of(base, "knotless");
    }
    String home = env.get("HOME");
    if (home == null || home.isBlank()) {
      home = System.getProperty("user.home");
    }
    return Path.of(home, dotDir, "knotless");
  }

  /** The directory holding the files. */
  public Path dir() {
    return dir;
  }

  /** Where one file lives. */
  public Path path(CacheFile file) {
    return dir.resolve(file.fileName());
  }

  /** The value stored under {@code key}, if there is one still within its file's lifetime. */
  public Optional<JsonNode> get(CacheFile file, String key) {
    JsonNode entry = JsonFiles.read(path(file)).get(key);
    return fresh(file, entry) ? Optional.of(entry.get("value")) : Optional.empty();
  }

  /** Every entry of a file still within its lifetime, in file order. */
  public Map<String, JsonNode> entries(CacheFile file) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    JsonFiles.read(path(file))
        .fields()
        .forEachRemaining(
            e -> {
              if (fresh(file, e.getValue())) {
                out.put(e.getKey(), e.getValue().get("value"));
              }
            });
    return out;
  }

  /** Stores {@code value} under {@code key}, stamped now, and drops entries that have expired. */
  public void put(CacheFile file, String key, JsonNode value) {
    put(file, Map.of(key, value));
  }

  /** Stores every entry of {@code entries} in one update of the file. */
  public void put(CacheFile file, Map<String, ? extends JsonNode> entries) {
    long now = clock.millis();
    JsonFiles.update(
        path(file),
        false,
        current -> {
          current.properties().removeIf(e -> !fresh(file, e.getValue()));
          entries.forEach(
              (key, value) -> {
                ObjectNode entry = current.putObject(key);
                entry.put("at", now);
                entry.set("value", value);
              });
        });
  }

  /** Removes {@code key}; nothing happens if it is not there. */
  public void remove(CacheFile file, String key) {
    JsonFiles.update(path(file), false, current -> current.remove(key));
  }

  private boolean fresh(CacheFile file, JsonNode entry) {
    if (entry == null || !entry.isObject() || !entry.has("value") || !entry.path("at").isNumber()) {
      return false;
    }
    Optional<Duration> lifetime = file.lifetime();
    if (lifetime.isEmpty()) {
      return true;
    }
    long age = clock.millis() - entry.get("at").asLong();
    return age >= 0 && age < lifetime.get().toMillis();
  }

  // ---- typed entries other modules use ----------------------------------------------------

  /** The cached key of repository {@code name} of {@code did} ({@code keys.json}). */
  public Optional<String> repoKey(String did, String name) {
    return get(CacheFile.KEYS, did + "/" + name).map(JsonNode::asText);
  }

  /** Remembers the key of repository {@code name} of {@code did}. */
  public void putRepoKey(String did, String name, String key) {
    put(CacheFile.KEYS, did + "/" + name, Json.nodes().textNode(key));
  }

  /** Forgets the key of repository {@code name}, after a snapshot found it changed or gone. */
  public void removeRepoKey(String did, String name) {
    remove(CacheFile.KEYS, did + "/" + name);
  }

  /** The blob upload limit {@code pds} advertised within the hour, in bytes. */
  public Optional<Long> blobUploadLimit(URI pds) {
    return get(CacheFile.SERVERS, pds.toString()).map(JsonNode::asLong);
  }

  /** Remembers the blob upload limit {@code pds} advertises, in bytes. */
  public void putBlobUploadLimit(URI pds, long bytes) {
    put(CacheFile.SERVERS, pds.toString(), Json.nodes().numberNode(bytes));
  }

  /** Whether {@code did}'s email claim was looked up before ({@code emails.json}). */
  public boolean emailLookedUp(String did) {
    return get(CacheFile.EMAILS, did).isPresent();
  }

  /** Remembers that {@code did}'s email claim was looked up. */
  public void markEmailLookedUp(String did) {
    put(CacheFile.EMAILS, did, Json.nodes().booleanNode(true));
  }
}
