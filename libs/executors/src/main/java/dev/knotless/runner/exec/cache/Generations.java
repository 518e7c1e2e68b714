package dev.knotless.runner.exec.cache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The bookkeeping of the cache store's bases: which generation of each is current (its {@code
 * current} pointer on disk), how many runs read each generation, which are being made, and the
 * known size of each current one. Not thread-safe: the store holds its own monitor around every
 * call.
 */
final class Generations {

  /** The ending of a directory being made, removed if left. */
  static final String MAKING = ".making";

  /** A generation a run reads, and whether it had vanished from disk and was made afresh. */
  record Acquired(Path dir, boolean vanished) {}

  private final Path root;
  private final Map<String, Integer> current = new HashMap<>();
  private final Map<Path, Integer> readers = new HashMap<>();
  private final Set<Path> making = new HashSet<>();
  private final Map<String, Long> baseBytes = new HashMap<>();
  private int nextGeneration = (int) (System.currentTimeMillis() / 1000 % 1_000_000_000);

  Generations(Path root) {
    this.root = root;
  }

  Path base(String name) {
    return root.resolve("bases").resolve(name);
  }

  Path generation(String name, int gen) {
    return base(name).resolve(Integer.toString(gen));
  }

  /**
   * The generation {@code name} reads now, counted as read once more. One made current here, or
   * whose pointer is on disk, but whose directory is gone (removed by hand, a volume replaced) is
   * made again, empty: the run starts cold rather than fail.
   */
  Acquired acquire(String name) throws IOException {
    boolean known = current.containsKey(name) || Files.exists(base(name).resolve("current"));
    int gen = currentOf(name);
    Path dir = generation(name, gen);
    boolean vanished = false;
    if (!Files.isDirectory(dir)) {
      vanished = known;
      // A new cache starts as an empty base.
      makeEmptyCurrent(name, gen);
    }
    readers.merge(dir, 1, Integer::sum);
    return new Acquired(dir, vanished);
  }

  /**
   * Counts one more reader of generation {@code gen} of {@code name} if it is current; null,
   * counting none, if it is not.
   */
  Path acquireIfCurrent(String name, int gen) {
    Path read = generation(name, gen);
    if (currentOf(name) != gen || !Files.isDirectory(read)) {
      return null;
    }
    readers.merge(read, 1, Integer::sum);
    return read;
  }

  /** Counts one reader of {@code gen} fewer; true if that was its last and it is not current. */
  boolean release(String name, Path gen) {
    int left = readers.merge(gen, -1, Integer::sum);
    if (left <= 0) {
      readers.remove(gen);
    }
    return left <= 0 && !isCurrent(name, gen);
  }

  /** Picks a fresh generation number of {@code name} and counts its directory as being made. */
  int startMaking(String name) {
    int gen;
    Path next;
    do {
      gen = ++nextGeneration;
      next = making(name, gen);
    } while (Files.exists(next) || Files.exists(generation(name, gen)));
    making.add(next);
    return gen;
  }

  /** Where generation {@code gen} of {@code name} is made before it is moved into place. */
  Path making(String name, int gen) {
    return base(name).resolve(gen + MAKING);
  }

  void doneMaking(Path next) {
    making.remove(next);
  }

  boolean isCurrent(String name, Path gen) {
    return gen.equals(generation(name, currentOf(name)));
  }

  /** Moves the made generation {@code gen} into place and makes it current. */
  void makeCurrent(String name, int gen, long size) throws IOException {
    Files.move(making(name, gen), generation(name, gen), StandardCopyOption.ATOMIC_MOVE);
    // The generation is whole before the pointer names it: a crash before leaves it old.
    writeCurrent(name, gen);
    baseBytes.put(name, size);
  }

  /** Makes an empty generation {@code gen} of {@code name} current: its next run starts afresh. */
  void makeEmptyCurrent(String name, int gen) throws IOException {
    Files.createDirectories(generation(name, gen));
    writeCurrent(name, gen);
    baseBytes.put(name, 0L);
  }

  /**
   * Moves base {@code base} under {@code trash/} if no run reads it and none promotes it, and
   * forgets it; null if it stays.
   */
  Path moveAsideIfUnread(Path base) throws IOException {
    boolean inUse =
        readers.keySet().stream().anyMatch(g -> g.startsWith(base))
            || making.stream().anyMatch(g -> g.startsWith(base));
    if (inUse) {
      return null;
    }
    String name = base.getFileName().toString();
    Path trash = root.resolve("trash").resolve(name + "-" + System.nanoTime());
    Files.createDirectories(trash.getParent());
    Files.move(base, trash, StandardCopyOption.ATOMIC_MOVE);
    current.remove(name);
    baseBytes.remove(name);
    return trash;
  }

  /** Whether generation {@code gen} of {@code name} is neither current, read, made nor pinned. */
  boolean unused(String name, Path gen, Set<Path> pinned) {
    return !making.contains(gen)
        && !readers.containsKey(gen)
        && !pinned.contains(gen)
        && !isCurrent(name, gen);
  }

  /** The known size of base {@code name}'s current generation, or null, and where it is. */
  Map.Entry<Long, Path> knownSize(String name) {
    return new java.util.AbstractMap.SimpleEntry<>(
        baseBytes.get(name), generation(name, currentOf(name)));
  }

  void sized(String name, long bytes) {
    baseBytes.putIfAbsent(name, bytes);
  }

  /** The current generation of {@code name}, read from disk the first time; 0 for a new one. */
  private int currentOf(String name) {
    return current.computeIfAbsent(
        name,
        n -> {
          Path file = base(n).resolve("current");
          try {
            return Integer.parseInt(Files.readString(file).strip());
          } catch (IOException | NumberFormatException e) {
            return 0;
          }
        });
  }

  private void writeCurrent(String name, int gen) throws IOException {
    Path tmp = base(name).resolve("current.tmp");
    Files.writeString(tmp, gen + "\n");
    Files.move(tmp, base(name).resolve("current"), StandardCopyOption.ATOMIC_MOVE);
    current.put(name, gen);
  }
}
