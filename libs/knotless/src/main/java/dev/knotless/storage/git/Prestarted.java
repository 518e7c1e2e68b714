package dev.knotless.storage.git;

import dev.knotless.storage.Threads;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The git processes {@link Git#prestart} started ahead of need, waiting on their stdin until a
 * {@link Git} call that starts the same command in the same repository takes one. Thread-safe.
 */
final class Prestarted {

  /**
   * What a process was started as: a call starting the same takes it.
   *
   * <p>{@code equals} and {@code hashCode} are written out: a record's own are made at their first
   * call from method handles, which took the git helper's short-lived JVM 20 ms, in every start.
   */
  record Key(Path gitDir, Map<String, String> env, List<String> args, boolean quiet) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key k
          && gitDir.equals(k.gitDir)
          && env.equals(k.env)
          && args.equals(k.args)
          && quiet == k.quiet;
    }

    @Override
    public int hashCode() {
      return ((gitDir.hashCode() * 31 + env.hashCode()) * 31 + args.hashCode()) * 31
          + Boolean.hashCode(quiet);
    }
  }

  /** Starts one process; may fail as starting git fails. */
  @FunctionalInterface
  interface Spawn {
    Process spawn() throws GitException;
  }

  private static final ConcurrentHashMap<Key, ConcurrentLinkedDeque<Process>> WAITING =
      new ConcurrentHashMap<>();

  /** The starts under way, by repository, so that {@link #end} misses none. */
  private static final ConcurrentHashMap<Path, ConcurrentLinkedQueue<CompletableFuture<Void>>>
      STARTING = new ConcurrentHashMap<>();

  private Prestarted() {}

  /** Starts a process as {@code key} on another thread. */
  static void start(Key key, Spawn spawn) {
    STARTING
        .computeIfAbsent(key.gitDir(), k -> new ConcurrentLinkedQueue<>())
        .add(
            CompletableFuture.runAsync(
                () -> {
                  try {
                    Process p = spawn.spawn();
                    WAITING.computeIfAbsent(key, k -> new ConcurrentLinkedDeque<>()).add(p);
                  } catch (GitException e) {
                    // Started when asked instead, and failing then with its own message.
                  }
                },
                Threads.IO));
  }

  /** A live process started as {@code key}, now the caller's; null when there is none. */
  static Process take(Key key) {
    var waiting = WAITING.get(key);
    if (waiting != null) {
      Process p;
      while ((p = waiting.poll()) != null) {
        if (p.isAlive()) {
          return p;
        }
      }
    }
    return null;
  }

  /** Ends every process started in {@code gitDir} that nothing took. */
  static void end(Path gitDir) {
    var starting = STARTING.get(gitDir);
    CompletableFuture<Void> f;
    while (starting != null && (f = starting.poll()) != null) {
      f.join(); // a start under way lands in WAITING first, so none is missed
    }
    for (var e : WAITING.entrySet()) {
      if (e.getKey().gitDir().equals(gitDir)) {
        Process p;
        while ((p = e.getValue().poll()) != null) {
          p.destroy();
        }
      }
    }
    WAITING.entrySet().removeIf(e -> e.getKey().gitDir().equals(gitDir) && e.getValue().isEmpty());
  }
}
