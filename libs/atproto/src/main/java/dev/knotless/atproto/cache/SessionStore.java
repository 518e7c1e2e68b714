package dev.knotless.atproto.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Sessions (access and refresh tokens) by DID, in {@code sessions.json} in the config directory
 * ({@link LocalCache#configDir}). The file is readable and writable by its owner alone ({@code
 * rw-------}) from the moment it exists, and the directory, when this creates it, is {@code
 * rwx------}. Rewritten through a temporary file and a rename like the cache files. The tokens are
 * secrets: nothing here logs them. Thread-safe.
 */
public final class SessionStore {
  /** The file's name inside the config directory. */
  public static final String FILE_NAME = "sessions.json";

  private final Path file;

  public SessionStore(Path configDir) {
    this.file = Objects.requireNonNull(configDir, "configDir").resolve(FILE_NAME);
  }

  /** The store the environment names ({@code System.getenv()} in production). */
  public static SessionStore fromEnvironment(Map<String, String> env) {
    return new SessionStore(LocalCache.configDir(env));
  }

  /** The sessions file. */
  public Path file() {
    return file;
  }

  /** The session saved for {@code did}, if any. */
  public Optional<ObjectNode> read(String did) {
    JsonNode session = JsonFiles.read(file).get(did);
    return session instanceof ObjectNode object ? Optional.of(object) : Optional.empty();
  }

  /** Saves (or replaces) the session of {@code did}. */
  public void write(String did, ObjectNode session) {
    JsonFiles.update(file, true, current -> current.set(did, session));
  }

  /** Forgets the session of {@code did}, as a logout does. */
  public void remove(String did) {
    JsonFiles.update(file, true, current -> current.remove(did));
  }
}
