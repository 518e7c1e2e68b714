package dev.knotless.atproto.space;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a {@link XrpcSpaceClient} keeps the space credentials it was given, by caller, host and
 * space: in memory for one process, or in the config directory beside sessions ({@link
 * dev.knotless.atproto.cache.SpaceCredentialFile}), so that each git operation, a process of its
 * own, does not ask for one again. A credential is a secret: nothing here logs it.
 */
public interface SpaceCredentials {

  /** One credential and when it ends. */
  record Held(String token, Instant expires) {
    @Override
    public String toString() {
      return "Held[expires " + expires + "]";
    }
  }

  Optional<Held> get(String key);

  void put(String key, Held held);

  /** Forgets {@code held} under {@code key}, unless another has replaced it meanwhile. */
  void remove(String key, Held held);

  /** Credentials kept for this process only. */
  static SpaceCredentials inMemory() {
    ConcurrentHashMap<String, Held> map = new ConcurrentHashMap<>();
    return new SpaceCredentials() {
      @Override
      public Optional<Held> get(String key) {
        return Optional.ofNullable(map.get(key));
      }

      @Override
      public void put(String key, Held held) {
        map.put(key, held);
      }

      @Override
      public void remove(String key, Held held) {
        map.remove(key, held);
      }
    };
  }
}
