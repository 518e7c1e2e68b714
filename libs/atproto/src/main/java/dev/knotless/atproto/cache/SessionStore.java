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
 * secrets: nothing here logs them. Beside the sessions, keyed by DID, the file names the account
 * {@code knotless login} logged in last ({@link #loggedIn}), under a key no DID is spelled as.
 * Thread-safe.
 */
public final class SessionStore {
  /** The file's name inside the config directory. */
  public static final String FILE_NAME = "sessions.json";

  /** The key naming the account of the last {@code knotless login}; a DID always starts "did:". */
  private static final String LOGIN = "login";

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

  /**
   * Saves the session of {@code did} as {@link #write} does, and names {@code did} the account this
   * person logged in as, which {@link #loggedIn} answers from then on.
   */
  public void writeLogin(String did, ObjectNode session) {
    JsonFiles.update(
        file,
        true,
        current -> {
          current.set(did, session);
          current.put(LOGIN, did);
        });
  }

  /**
   * The account this person logged in as with {@code knotless login}, while its session is saved. A
   * file from before logins were named, holding exactly one account's session, names that one.
   * Empty when there is none, or several and no login names one of them.
   */
  public Optional<String> loggedIn() {
    ObjectNode all = JsonFiles.read(file);
    String named = all.path(LOGIN).asText("");
    if (all.get(named) instanceof ObjectNode) {
      return Optional.of(named);
    }
    java.util.List<String> dids = new java.util.ArrayList<>();
    all.fieldNames()
        .forEachRemaining(
            k -> {
              if (k.startsWith("did:") && all.get(k) instanceof ObjectNode) {
                dids.add(k);
              }
            });
    return dids.size() == 1 ? Optional.of(dids.get(0)) : Optional.empty();
  }

  /** Work done while no other process changes the sessions file. */
  public interface Exclusive<T> {
    T run() throws java.io.IOException;
  }

  /**
   * Runs {@code work} while no other process or thread changes the file; its own {@link #write}s go
   * through. An OAuth refresh runs so: its refresh token is single use, and two processes spending
   * the same one would end the session at the server.
   */
  public <T> T exclusively(Exclusive<T> work) throws java.io.IOException {
    return JsonFiles.locked(file, true, work::run);
  }

  /** Forgets the session of {@code did}, as a logout does, and the login if it named it. */
  public void remove(String did) {
    JsonFiles.update(
        file,
        true,
        current -> {
          current.remove(did);
          if (did.equals(current.path(LOGIN).asText(null))) {
            current.remove(LOGIN);
          }
        });
  }
}
