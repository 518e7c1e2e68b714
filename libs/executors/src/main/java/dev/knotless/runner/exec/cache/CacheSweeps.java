package dev.knotless.runner.exec.cache;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link CacheStore} removes and sizes outside a run: leftovers at start and on each sweep, a
 * deleted repository's caches, and the current bases' sizes for gauges. Works through the store's
 * lock, so it never removes what a live run reads or a promotion makes. Thread-safe.
 */
final class CacheSweeps {

  private static final Logger LOG = LoggerFactory.getLogger(CacheSweeps.class);

  /** The name of a base: its repository, workflow and path, each hashed. */
  private static final Pattern NAMED =
      Pattern.compile("[0-9a-f]{16}\\.[0-9a-f]{16}\\.[0-9a-f]{16}");

  private final CacheStore store;

  CacheSweeps(CacheStore store) {
    this.store = store;
  }

  void removeLeftovers(java.util.function.Predicate<String> spare) {
    Path root = store.root();
    Set<Path> pinned = new HashSet<>();
    int runs = 0;
    try (DirectoryStream<Path> all = Files.newDirectoryStream(root.resolve("runs"))) {
      for (Path runDir : all) {
        if (store.live(runDir.getFileName().toString())) {
          continue;
        }
        if (spare.test(runDir.getFileName().toString())) {
          LOG.info(
              "kept the cache overlays of run {}: a pod adopted from a runner that stopped uses"
                  + " them",
              runDir.getFileName());
          pin(runDir, pinned);
        } else if (RunCaches.removeLeftover(runDir)) {
          runs++;
        } else {
          pin(runDir, pinned);
        }
      }
    } catch (IOException e) {
      LOG.warn("could not sweep the caches' leftover overlays: {}", e.toString());
    }
    if (runs > 0) {
      LOG.info("removed the cache overlays of {} runs no longer going", runs);
    }
    try (DirectoryStream<Path> bases = Files.newDirectoryStream(root.resolve("bases"))) {
      for (Path base : bases) {
        sweepBase(base, pinned);
      }
    } catch (IOException e) {
      LOG.warn("could not sweep the caches' old bases: {}", e.toString());
    }
    sweepImageCopies();
    store.keptLayers().expire();
    CacheStore.deleteQuietly(root.resolve("trash"), "shed bases left half removed");
  }

  /** Adds the generations the run of {@code runDir} reads to {@code pinned}. */
  private static void pin(Path runDir, Set<Path> pinned) throws IOException {
    if (Files.exists(runDir.resolve("lowers"))) {
      for (String line : Files.readAllLines(runDir.resolve("lowers"))) {
        pinned.add(Path.of(line.strip()));
      }
    }
  }

  /**
   * Removes copies of images' files left half-made, once an hour old (one may be in the making).
   */
  private void sweepImageCopies() {
    long hourAgo = System.currentTimeMillis() - 3_600_000;
    try (DirectoryStream<Path> all =
        Files.newDirectoryStream(store.root().resolve("images"), "*" + CacheStore.MAKING + "-*")) {
      for (Path p : all) {
        if (Files.getLastModifiedTime(p).toMillis() < hourAgo) {
          CacheStore.deleteQuietly(p, "a half-made copy of an image's files");
        }
      }
    } catch (IOException e) {
      LOG.warn("could not sweep the caches' image copies: {}", e.toString());
    }
  }

  private void sweepBase(Path base, Set<Path> pinned) throws IOException {
    String name = base.getFileName().toString();
    if (!NAMED.matcher(name).matches()) {
      // Named otherwise than for its repository, workflow and path: no run will read it again.
      Path trash = store.moveAsideIfUnread(base);
      if (trash != null) {
        CacheStore.deleteQuietly(trash, "a base named as before");
      }
      return;
    }
    try (DirectoryStream<Path> gens = Files.newDirectoryStream(base, Files::isDirectory)) {
      for (Path gen : gens) {
        if (store.unused(name, gen, pinned)) {
          CacheStore.deleteQuietly(
              gen,
              gen.getFileName().toString().endsWith(CacheStore.MAKING)
                  ? "a half-made generation"
                  : "an old generation no run reads");
        }
      }
    }
  }

  /** Removes repository {@code repo}'s bases no run reads, its kept layers and its marks. */
  CacheStore.Amount removeRepo(String repo) {
    String prefix = CacheNames.hash(repo) + ".";
    List<Path> gone = new ArrayList<>();
    try (DirectoryStream<Path> bases =
        Files.newDirectoryStream(store.root().resolve("bases"), prefix + "*")) {
      for (Path base : bases) {
        Path trash = store.moveAsideIfUnread(base);
        if (trash != null) {
          gone.add(trash);
        }
      }
    } catch (IOException e) {
      LOG.warn("could not remove the caches of {}: {}", repo, e.toString());
    }
    long bytes = 0;
    for (Path p : gone) {
      bytes += sizeOfMovedBase(p);
      CacheStore.deleteQuietly(p, "a deleted repository's base");
    }
    CacheStore.Amount kept = store.keptLayers().removeStartingWith(prefix);
    store.removeMarks(prefix);
    return new CacheStore.Amount(gone.size() + kept.count(), bytes + kept.bytes());
  }

  /**
   * The current bases and the bytes of their files. A base not sized since the start is sized once,
   * outside the lock; promotion sizes the rest as it goes.
   */
  CacheStore.Amount bases() {
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> bases = Files.newDirectoryStream(store.root().resolve("bases"))) {
      for (Path b : bases) {
        names.add(b.getFileName().toString());
      }
    } catch (IOException e) {
      LOG.debug("could not list the caches' bases: {}", e.toString());
    }
    long bytes = 0;
    for (String name : names) {
      Map.Entry<Long, Path> known = store.knownSize(name);
      long size;
      if (known.getKey() != null) {
        size = known.getKey();
      } else {
        try {
          size = Files.isDirectory(known.getValue()) ? Layers.sizeOf(known.getValue()) : 0L;
        } catch (IOException e) {
          size = 0L;
        }
        store.sized(name, size);
      }
      bytes += size;
    }
    return new CacheStore.Amount(names.size(), bytes);
  }

  /**
   * The bytes of the files of the current generation of a base moved aside whole to {@code dir}.
   */
  static long sizeOfMovedBase(Path dir) {
    try {
      Path gen = dir.resolve(Files.readString(dir.resolve("current")).strip());
      return Files.isDirectory(gen) ? Layers.sizeOf(gen) : 0;
    } catch (IOException | RuntimeException e) {
      LOG.debug("could not size {}: {}", dir, e.toString());
      return 0;
    }
  }
}
