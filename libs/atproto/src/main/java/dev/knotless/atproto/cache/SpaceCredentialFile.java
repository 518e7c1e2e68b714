package dev.knotless.atproto.cache;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.space.SpaceCredentials;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;

/**
 * Space credentials in {@code spaces.json} in the config directory, readable and writable by its
 * owner alone ({@code rw-------}), as sessions are kept. An entry past its end is dropped as the
 * file is next written. Thread-safe, and safe across processes as the other JSON files are.
 */
public final class SpaceCredentialFile implements SpaceCredentials {
  /** The file's name inside the config directory. */
  public static final String FILE_NAME = "spaces.json";

  private final Path file;

  public SpaceCredentialFile(Path configDir) {
    this.file = configDir.resolve(FILE_NAME);
  }

  /** The file the environment's config directory holds. */
  public static SpaceCredentialFile fromEnvironment(Map<String, String> env) {
    return new SpaceCredentialFile(LocalCache.configDir(env));
  }

  @Override
  public Optional<Held> get(String key) {
    JsonNode n = JsonFiles.read(file).get(key);
    return n == null ? Optional.empty() : held(n);
  }

  @Override
  public void put(String key, Held held) {
    JsonFiles.update(
        file,
        true,
        current -> {
          Instant now = Instant.now();
          current
              .properties()
              .removeIf(e -> held(e.getValue()).map(h -> !h.expires().isAfter(now)).orElse(true));
          current
              .putObject(key)
              .put("credential", held.token())
              .put("expiresAt", held.expires().toString());
        });
  }

  @Override
  public void remove(String key, Held held) {
    JsonFiles.update(
        file,
        true,
        current -> {
          if (current.get(key) != null && held(current.get(key)).equals(Optional.of(held))) {
            current.remove(key);
          }
        });
  }

  private static Optional<Held> held(JsonNode n) {
    String token = n.path("credential").asText("");
    if (token.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Held(token, Instant.parse(n.path("expiresAt").asText())));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
