package dev.knotless.runner.exec.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The upper layers a trusted pull's or batch's passing run kept, by its check, for the push that
 * lands it to promote as if its own run had written them (runner.md, "Across trust levels"). On
 * disk, {@code kept/<h(check)>/} holds one directory per path ({@code <i>/}, the layer as overlayfs
 * left it, whiteouts and opaque marks and all) and {@code meta}, what they are. A set goes after
 * {@link #MAX_AGE}, beyond the {@link #MAX_SETS} newest, or, oldest first, beyond {@code
 * --cache-max} in all; and once taken, once a newer run of its pull's workflow starts, or, for a
 * batch, once a later batch's set on the branch is taken. Thread-safe.
 */
final class KeptLayers {

  private static final Logger LOG = LoggerFactory.getLogger(KeptLayers.class);

  /** How long a set is kept. */
  static final Duration MAX_AGE = Duration.ofDays(3);

  /** How many sets are kept, the newest. */
  static final int MAX_SETS = 16;

  /** One path's layer: its index in the set, its base and the generation it was written over. */
  record Layer(int index, String name, int generation, String path) {}

  /** One kept set, as its {@code meta} says. */
  record Meta(
      String check,
      String subject,
      String workflow,
      long atMillis,
      long bytes,
      List<Layer> layers) {

    boolean batch() {
      return subject.startsWith("queue ");
    }

    List<String> lines() {
      List<String> out = new ArrayList<>();
      out.add("check " + check);
      out.add("subject " + subject);
      out.add("workflow " + workflow);
      out.add("at " + atMillis);
      out.add("bytes " + bytes);
      for (Layer l : layers) {
        out.add("layer " + l.index() + " " + l.generation() + " " + l.name() + " " + l.path());
      }
      return out;
    }

    static Meta parse(List<String> lines) {
      Map<String, String> v = new HashMap<>();
      List<Layer> layers = new ArrayList<>();
      for (String line : lines) {
        int sp = line.indexOf(' ');
        if (sp < 0) {
          continue;
        }
        String k = line.substring(0, sp);
        String rest = line.substring(sp + 1);
        if (k.equals("layer")) {
          String[] p = rest.split(" ", 4);
          layers.add(new Layer(Integer.parseInt(p[0]), p[2], Integer.parseInt(p[1]), p[3]));
        } else {
          v.put(k, rest);
        }
      }
      if (!v.containsKey("check") || !v.containsKey("subject") || !v.containsKey("at")) {
        throw new IllegalArgumentException("a kept set's meta lacks its check, subject or time");
      }
      return new Meta(
          v.get("check"),
          v.get("subject"),
          v.getOrDefault("workflow", ""),
          Long.parseLong(v.get("at")),
          Long.parseLong(v.getOrDefault("bytes", "0")),
          List.copyOf(layers));
    }
  }

  /** A set taken out of the kept ones, at {@code dir}, for the caller to promote then remove. */
  record Taken(Meta meta, Path dir) {
    Path upper(Layer l) {
      return dir.resolve(Integer.toString(l.index()));
    }
  }

  private final Path dir;
  private final Path trash;
  private final long maxBytes;
  private final Clock clock;
  private final CacheFigures figures;
  private final CacheStore store;
  private final Map<String, Meta> sets = new HashMap<>();

  KeptLayers(CacheStore store, long maxBytes, Clock clock, CacheFigures figures)
      throws IOException {
    this.store = store;
    Path root = store.root();
    this.figures = figures;
    this.dir = Files.createDirectories(root.resolve("kept"));
    this.trash = root.resolve("trash");
    this.maxBytes = maxBytes;
    this.clock = clock;
    try (DirectoryStream<Path> all = Files.newDirectoryStream(dir)) {
      for (Path set : all) {
        String key = set.getFileName().toString();
        try {
          sets.put(key, Meta.parse(Files.readAllLines(set.resolve("meta"))));
        } catch (IOException | RuntimeException e) {
          // Half kept when the runner stopped, or unreadable: of no use to any push.
          CacheStore.deleteQuietly(set, "a kept set that cannot be read");
        }
      }
    }
  }

  /**
   * Keeps the non-empty {@code uppers} of a passing run as {@code as}, by moving them in, then
   * applies the limits.
   *
   * @param uppers each path's layer and what it was written over, in the run's order
   * @return lines for the run's log
   */
  List<String> keep(CacheRequest.KeptAs as, String workflow, List<Layer> layers, List<Path> uppers)
      throws IOException {
    if (as.check().contains("\n") || as.subject().contains("\n") || workflow.contains("\n")) {
      throw new IllegalArgumentException("a kept set's check, subject or workflow holds a newline");
    }
    List<String> lines = new ArrayList<>();
    String key = CacheNames.hash(as.check());
    Path making = dir.resolve(key + CacheStore.MAKING);
    CacheStore.deleteQuietly(making, "a half-kept set");
    Files.createDirectories(making);
    List<Layer> kept = new ArrayList<>();
    long bytes = 0;
    for (int i = 0; i < layers.size(); i++) {
      Layer l = layers.get(i);
      Path upper = uppers.get(i);
      if (Layers.isEmpty(upper)) {
        lines.add("cache " + l.path() + ": nothing written, nothing kept");
        continue;
      }
      long size = Layers.sizeOf(upper);
      Files.move(
          upper, making.resolve(Integer.toString(l.index())), StandardCopyOption.ATOMIC_MOVE);
      kept.add(l);
      bytes += size;
      lines.add(
          "cache " + l.path() + ": " + size + " bytes kept for the push that lands this pass");
    }
    if (kept.isEmpty()) {
      CacheStore.deleteQuietly(making, "an empty kept set");
      return lines;
    }
    Meta meta =
        new Meta(as.check(), as.subject(), workflow, clock.millis(), bytes, List.copyOf(kept));
    Files.write(making.resolve("meta"), meta.lines(), StandardCharsets.UTF_8);
    Path aside = null;
    synchronized (this) {
      if (sets.containsKey(key)) {
        aside = moveToTrash(key);
      }
      Files.move(making, dir.resolve(key), StandardCopyOption.ATOMIC_MOVE);
      sets.put(key, meta);
    }
    removeAll(aside == null ? List.of() : List.of(aside), "a set kept again by its check");
    figures.kept(kept.size());
    LOG.info(
        "kept {} cache layers of {} ({}), {} bytes", kept.size(), as.check(), as.subject(), bytes);
    expire();
    return lines;
  }

  /**
   * Forgets the sets of {@code subject}'s {@code workflow} (every workflow's, if null): a pull's
   * new run starts, so it moved or is run again, or it closed; what it kept before will not land.
   */
  void forget(String subject, String workflow) {
    List<Path> gone = new ArrayList<>();
    synchronized (this) {
      for (String key : keys()) {
        Meta m = sets.get(key);
        if (m.subject().equals(subject) && (workflow == null || m.workflow().equals(workflow))) {
          gone.add(moveToTrashQuietly(key));
        }
      }
    }
    if (!gone.isEmpty()) {
      LOG.info("forgot {} sets of cache layers {} kept", gone.size(), subject);
    }
    removeAll(gone, "kept layers of a pull that moved or closed");
  }

  /**
   * Takes the set kept by {@code check} out of the kept ones, moved to {@code into}; for a batch's,
   * also forgets the sets its branch's earlier batches kept of the workflow. Null if none is kept.
   */
  Taken take(String check, Path into) throws IOException {
    String key = CacheNames.hash(check);
    List<Path> gone = new ArrayList<>();
    Taken taken;
    synchronized (this) {
      Meta meta = sets.get(key);
      if (meta == null || !meta.check().equals(check)) {
        return null;
      }
      Files.createDirectories(into.getParent());
      Files.move(dir.resolve(key), into, StandardCopyOption.ATOMIC_MOVE);
      sets.remove(key);
      taken = new Taken(meta, into);
      if (meta.batch()) {
        for (String k : keys()) {
          Meta m = sets.get(k);
          if (m.subject().equals(meta.subject())
              && m.workflow().equals(meta.workflow())
              && m.atMillis() <= meta.atMillis()) {
            gone.add(moveToTrashQuietly(k));
          }
        }
      }
    }
    removeAll(gone, "kept layers of an earlier batch");
    return taken;
  }

  /**
   * Takes the set kept by {@code check} and promotes each of its layers over the base it was
   * written over, if that is still current ({@link CacheStore#takeKept}). Never throws.
   */
  List<String> promote(String check) {
    String run = "take-" + CacheNames.hash(check) + "-" + System.nanoTime();
    // Counted as a run going, so that a sweep meanwhile leaves the set where it is taken to.
    store.live(run, true);
    List<String> lines = new ArrayList<>();
    Path into = store.root().resolve("runs").resolve(run);
    try {
      Taken taken = take(check, into);
      if (taken == null) {
        return lines;
      }
      for (Layer l : taken.meta().layers()) {
        lines.add(promote(l, taken.upper(l)));
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("the cache layers kept by {} were not taken: {}", check, e.toString());
      lines.add("cache: the layers the pass kept were not taken: " + e.getMessage());
    } finally {
      CacheStore.deleteQuietly(into, "taken kept layers");
      store.live(run, false);
    }
    return lines;
  }

  private String promote(Layer l, Path upper) {
    Path read = store.acquireIfCurrent(l.name(), l.generation());
    if (read == null) {
      figures.notPromoted();
      return "cache "
          + l.path()
          + ": not promoted, the base moved on since the pass was kept: the next run warms it";
    }
    try {
      return store.promote(l.name(), l.path(), read, upper, CacheRequest.NO_MARK);
    } catch (IOException | RuntimeException e) {
      figures.notPromoted();
      LOG.warn("cache {} kept was not promoted: {}", l.path(), e.toString());
      return "cache " + l.path() + ": not promoted: " + e.getMessage();
    } finally {
      store.release(l.name(), read);
    }
  }

  /** Drops the sets over the limits: too old, beyond the newest 16, beyond --cache-max in all. */
  void expire() {
    List<Path> gone = new ArrayList<>();
    synchronized (this) {
      long oldest = clock.millis() - MAX_AGE.toMillis();
      List<String> newestFirst =
          keys().stream()
              .sorted(Comparator.comparingLong((String k) -> sets.get(k).atMillis()).reversed())
              .toList();
      long total = 0;
      int n = 0;
      for (String key : newestFirst) {
        Meta m = sets.get(key);
        total += m.bytes();
        n++;
        if (m.atMillis() < oldest || n > MAX_SETS || total > maxBytes) {
          gone.add(moveToTrashQuietly(key));
        }
      }
    }
    removeAll(gone, "kept layers over the limits");
  }

  /** Sheds every set, for the disk floor. */
  CacheStore.Amount shedAll() {
    List<Path> gone = new ArrayList<>();
    long bytes = 0;
    synchronized (this) {
      for (String key : keys()) {
        bytes += sets.get(key).bytes();
        gone.add(moveToTrashQuietly(key));
      }
    }
    removeAll(gone, "kept layers shed at the disk floor");
    return new CacheStore.Amount(gone.size(), bytes);
  }

  /** Forgets the sets whose layers are of bases named with {@code prefix}: a repository's. */
  CacheStore.Amount removeStartingWith(String prefix) {
    List<Path> gone = new ArrayList<>();
    long bytes = 0;
    synchronized (this) {
      for (String key : keys()) {
        if (sets.get(key).layers().stream().anyMatch(l -> l.name().startsWith(prefix))) {
          bytes += sets.get(key).bytes();
          gone.add(moveToTrashQuietly(key));
        }
      }
    }
    removeAll(gone, "kept layers of a deleted repository");
    return new CacheStore.Amount(gone.size(), bytes);
  }

  /** How many sets are kept, and their bytes. */
  synchronized CacheStore.Amount sizes() {
    return new CacheStore.Amount(sets.size(), sets.values().stream().mapToLong(Meta::bytes).sum());
  }

  private List<String> keys() {
    return new ArrayList<>(sets.keySet());
  }

  private Path moveToTrash(String key) throws IOException {
    Path to = trash.resolve("kept-" + key + "-" + System.nanoTime());
    Files.createDirectories(trash);
    Files.move(dir.resolve(key), to, StandardCopyOption.ATOMIC_MOVE);
    sets.remove(key);
    return to;
  }

  private Path moveToTrashQuietly(String key) {
    try {
      return moveToTrash(key);
    } catch (IOException e) {
      LOG.warn("could not move the kept set {} aside: {}", key, e.toString());
      sets.remove(key);
      return dir.resolve(key);
    }
  }

  private static void removeAll(List<Path> gone, String what) {
    for (Path p : gone) {
      CacheStore.deleteQuietly(p, what);
    }
  }
}
