package dev.knotless.runner.exec.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner's caches under {@code --cache-dir}: read-only bases by generation, the overlays runs
 * see them through, and the bookkeeping of who reads which generation. Layout:
 *
 * <pre>
 * bases/&lt;h(repo)&gt;.&lt;h(workflow)&gt;.&lt;h(path)&gt;/current   the current generation's number
 * bases/&lt;name&gt;/&lt;n&gt;/                                  generation n, never written once made
 * bases/&lt;name&gt;/&lt;n&gt;.making/                           a generation being made (half-made)
 * empty/                                               the base of runs that read apart
 * runs/&lt;run&gt;/&lt;i&gt;/{upper,work,merged}                   one run's overlay of its i-th path
 * runs/&lt;run&gt;/lowers                                   the generations the run reads
 * images/&lt;h(image id)&gt;.&lt;h(path)&gt;/                     an image's own files at a path
 * </pre>
 *
 * Runs never wait on each other: opening takes a short lock to count a reader of the current
 * generation, and promotion makes the next generation outside it, taking the lock again only to
 * make it current. A generation is removed once it is not current and no run reads it. Everything
 * lies on one file system, so promotion moves files rather than copying them. Needs root.
 * Thread-safe.
 */
public final class CacheStore {

  private static final Logger LOG = LoggerFactory.getLogger(CacheStore.class);

  /** The largest base made current when {@code --cache-max} is not given: 16 GiB. */
  public static final long DEFAULT_MAX_BYTES = 16L << 30;

  static final String MAKING = ".making";

  /** The name of a base: its repository, workflow and path, each hashed. */
  private static final java.util.regex.Pattern NAMED =
      java.util.regex.Pattern.compile("[0-9a-f]{16}\\.[0-9a-f]{16}\\.[0-9a-f]{16}");

  private final Path root;
  private final long maxBytes;
  private final Map<String, Integer> current = new HashMap<>();
  private final Map<Path, Integer> readers = new HashMap<>();
  private final Set<Path> making = new HashSet<>();
  private final Set<String> liveRuns = new HashSet<>();
  private final CacheFigures figures = new CacheFigures();
  private final Map<String, Long> baseBytes = new HashMap<>();
  private final KeptLayers kept;
  private final BaseMarks marks;
  private int nextGeneration;

  /** A number of things (bases, kept sets) and the bytes of their files. */
  public record Amount(int count, long bytes) {}

  /**
   * @param root {@code --cache-dir}; made if missing. It may not hold a comma or a colon, which the
   *     overlay's mount options cannot carry
   * @param maxBytes {@code --cache-max}: a new base larger than this is not made current
   */
  public CacheStore(Path root, long maxBytes) throws IOException {
    this(root, maxBytes, java.time.Clock.systemUTC());
  }

  /** A store whose kept layers age by {@code clock}. */
  CacheStore(Path root, long maxBytes, java.time.Clock clock) throws IOException {
    this.root = Objects.requireNonNull(root, "cache root").toAbsolutePath().normalize();
    String s = this.root.toString();
    if (s.contains(",") || s.contains(":")) {
      throw new IllegalArgumentException("the cache directory may not hold ',' or ':': " + s);
    }
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("--cache-max must be above 0, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
    Files.createDirectories(this.root.resolve("bases"));
    Files.createDirectories(this.root.resolve("runs"));
    Files.createDirectories(this.root.resolve("images"));
    Files.createDirectories(empty());
    this.kept = new KeptLayers(this.root, maxBytes, clock, figures);
    this.marks = new BaseMarks(this.root.resolve("marks.json"));
    this.nextGeneration = (int) (System.currentTimeMillis() / 1000 % 1_000_000_000);
  }

  /** The cache directory. */
  public Path root() {
    return root;
  }

  /** What the caches did since this store was made, for metrics. */
  public CacheFigures figures() {
    return figures;
  }

  /** The largest base made current, in bytes. */
  public long maxBytes() {
    return maxBytes;
  }

  /**
   * Mounts one overlay per path of {@code request} for the run named {@code run}, each over the
   * current generation of its base (or the empty base, for a run reading apart), and over the
   * image's own files at that path when {@code imageFiles} gives a directory of them.
   *
   * @param imageFiles the image's files at a container path, or null where it has none
   * @return the run's overlays, to be unmounted and finished by the caller
   */
  public RunCaches open(CacheRequest request, String run, Function<String, Path> imageFiles)
      throws IOException {
    if (!request.use().mounts()) {
      return RunCaches.none();
    }
    Path runDir = root.resolve("runs").resolve(run);
    synchronized (this) {
      liveRuns.add(run);
    }
    RunCaches caches = new RunCaches(this, request, run, runDir);
    if (request.use() == CacheUse.KEEP_ON_PASS && !request.keepAs().batch()) {
      // A pull's new run: it moved or runs again, and what it kept before is not its pass now.
      kept.forget(request.keepAs().subject(), request.workflow());
    }
    try {
      Files.createDirectories(runDir);
      List<String> paths = request.containerPaths();
      for (int i = 0; i < paths.size(); i++) {
        String path = paths.get(i);
        String name = CacheNames.name(request.repo(), request.workflow(), path);
        Path lower;
        String base;
        if (request.use() == CacheUse.APART) {
          lower = empty();
          base = null;
          figures.opened(false);
        } else {
          lower = acquire(name);
          base = name;
          figures.opened(!Layers.isEmpty(lower));
        }
        Files.writeString(
            runDir.resolve("lowers"),
            lower + "\n",
            StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.APPEND);
        Path image = imageFiles == null ? null : imageFiles.apply(path);
        caches.add(path, base, lower, image, runDir.resolve(Integer.toString(i)));
      }
      return caches;
    } catch (IOException | RuntimeException e) {
      caches.finish(false);
      throw e;
    }
  }

  /** The generation {@code name} reads now, counted as read once more. */
  private synchronized Path acquire(String name) throws IOException {
    int gen = currentOf(name);
    Path dir = generation(name, gen);
    if (!Files.isDirectory(dir)) {
      // A new cache starts as an empty base.
      Files.createDirectories(dir);
      writeCurrent(name, gen);
      baseBytes.put(name, 0L);
    }
    readers.merge(dir, 1, Integer::sum);
    return dir;
  }

  /** Counts one reader of {@code gen} fewer, and removes it if it was the last of an old one. */
  void release(String name, Path gen) {
    boolean remove;
    synchronized (this) {
      int left = readers.merge(gen, -1, Integer::sum);
      if (left <= 0) {
        readers.remove(gen);
      }
      remove = left <= 0 && !gen.equals(generation(name, currentOf(name)));
    }
    if (remove) {
      deleteQuietly(gen, "an old generation no run reads");
    }
  }

  synchronized void ended(String run) {
    liveRuns.remove(run);
  }

  /**
   * Makes {@code upper}, written over generation {@code read} of base {@code name}, the base's next
   * generation: a hard-link clone of {@code read} with the layer applied. It is made current only
   * if {@code read} still is and it is within {@code --cache-max}; over that, an empty generation
   * is made current instead, and the next run starts afresh.
   *
   * @param mark the mark of the base a pull makes on a {@code --pulls-only} runner ({@link
   *     BaseMarks}), refused under a newer one; {@link CacheRequest#NO_MARK} for a push, whose base
   *     has none
   * @return a line for the run's log saying what became of it
   */
  String promote(String name, String path, Path read, Path upper, long mark) throws IOException {
    if (Layers.isEmpty(upper)) {
      return "cache " + path + ": nothing written, the base stays";
    }
    Path next;
    int gen;
    synchronized (this) {
      do {
        gen = ++nextGeneration;
        next = base(name).resolve(gen + MAKING);
      } while (Files.exists(next) || Files.exists(generation(name, gen)));
      making.add(next);
    }
    try {
      long started = System.nanoTime();
      Layers.cloneLinked(read, next);
      long moved = Layers.apply(upper, next);
      long size = Layers.sizeOf(next);
      synchronized (this) {
        // What is not made current goes in the finally, outside the lock.
        if (!read.equals(generation(name, currentOf(name)))) {
          figures.notPromoted();
          return "cache " + path + ": not promoted, another run made the base meanwhile";
        }
        if (marks.refuses(name, mark)) {
          figures.notPromoted();
          return "cache "
              + path
              + ": not promoted, the base was made at a newer tip of the default branch than"
              + " this run merged with";
        }
        if (size > maxBytes) {
          // Not made current, and the base is dropped: kept, it would only grow past again.
          figures.notPromoted();
          Files.createDirectory(generation(name, gen));
          writeCurrent(name, gen);
          baseBytes.put(name, 0L);
          marks.set(name, mark);
          return "cache "
              + path
              + ": not promoted, the new base ("
              + size
              + " bytes) is over --cache-max ("
              + maxBytes
              + " bytes): the next run starts afresh";
        }
        Path done = generation(name, gen);
        Files.move(next, done, StandardCopyOption.ATOMIC_MOVE);
        // The generation is whole before the pointer names it: a crash before leaves it old.
        writeCurrent(name, gen);
        current.put(name, gen);
        baseBytes.put(name, size);
        marks.set(name, mark);
      }
      figures.promoted(moved);
      long ms = (System.nanoTime() - started) / 1_000_000;
      LOG.info(
          "cache {} promoted: generation {}, {} bytes moved in, {} bytes in all, {} ms",
          name,
          gen,
          moved,
          size,
          ms);
      return "cache "
          + path
          + ": promoted, "
          + moved
          + " bytes written by this run kept ("
          + ms
          + " ms)";
    } finally {
      synchronized (this) {
        making.remove(next);
      }
      if (Files.exists(next)) {
        deleteQuietly(next, "a generation not made current");
      }
    }
  }

  /**
   * Removes what runs no longer going left: their overlays (unmounted first; one still busy is
   * left, and the generations it reads are then kept too), half-made generations and generations
   * neither current nor read. Called at start and on each sweep; never touches a live run's.
   */
  public void removeLeftovers() {
    Set<Path> pinned = new HashSet<>();
    int runs = 0;
    try (DirectoryStream<Path> all = Files.newDirectoryStream(root.resolve("runs"))) {
      for (Path runDir : all) {
        String run = runDir.getFileName().toString();
        synchronized (this) {
          if (liveRuns.contains(run)) {
            continue;
          }
        }
        if (RunCaches.removeLeftover(runDir)) {
          runs++;
        } else if (Files.exists(runDir.resolve("lowers"))) {
          for (String line : Files.readAllLines(runDir.resolve("lowers"))) {
            pinned.add(Path.of(line.strip()));
          }
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
    kept.expire();
    deleteQuietly(root.resolve("trash"), "shed bases left half removed");
  }

  /**
   * Removes copies of images' files left half-made, once an hour old (one may be in the making).
   */
  private void sweepImageCopies() {
    long hourAgo = System.currentTimeMillis() - 3_600_000;
    try (DirectoryStream<Path> all =
        Files.newDirectoryStream(root.resolve("images"), "*" + MAKING + "-*")) {
      for (Path p : all) {
        if (Files.getLastModifiedTime(p).toMillis() < hourAgo) {
          deleteQuietly(p, "a half-made copy of an image's files");
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
      Path trash = moveAsideIfUnread(base);
      if (trash != null) {
        deleteQuietly(trash, "a base named as before");
      }
      return;
    }
    try (DirectoryStream<Path> gens = Files.newDirectoryStream(base, Files::isDirectory)) {
      for (Path gen : gens) {
        boolean remove;
        synchronized (this) {
          int cur = currentOf(name);
          remove =
              !making.contains(gen)
                  && !readers.containsKey(gen)
                  && !pinned.contains(gen)
                  && !gen.equals(generation(name, cur));
        }
        if (remove) {
          deleteQuietly(
              gen,
              gen.getFileName().toString().endsWith(MAKING)
                  ? "a half-made generation"
                  : "an old generation no run reads");
        }
      }
    }
  }

  /**
   * Moves base {@code base} out of the way, under {@code trash/}, if no run reads it and none
   * promotes it, so its next run starts afresh; the caller removes it. Null if it stays.
   */
  synchronized Path moveAsideIfUnread(Path base) throws IOException {
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

  /** The directory of an image's own files at a container path, made by the caller if missing. */
  public Path imageFiles(String imageId, String path) {
    return root.resolve("images").resolve(CacheNames.hash(imageId) + "." + CacheNames.hash(path));
  }

  /** Keeps a passing run's layers by its check ({@link KeptLayers#keep}). */
  List<String> keep(
      CacheRequest.KeptAs as, String workflow, List<KeptLayers.Layer> layers, List<Path> uppers)
      throws IOException {
    return kept.keep(as, workflow, layers, uppers);
  }

  /**
   * Promotes the layers a trusted pull's or batch's pass kept by {@code check}, as the push that
   * takes that pass: each only over the base it was written over, if that is still current; the
   * rest are dropped, and their next run warms them. Never throws.
   *
   * @return lines for the push's log; none when nothing was kept by {@code check}
   */
  public List<String> takeKept(String check) {
    String run = "take-" + CacheNames.hash(check) + "-" + System.nanoTime();
    synchronized (this) {
      liveRuns.add(run);
    }
    List<String> lines = new ArrayList<>();
    Path dir = root.resolve("runs").resolve(run);
    try {
      KeptLayers.Taken taken = kept.take(check, dir);
      if (taken == null) {
        return lines;
      }
      for (KeptLayers.Layer l : taken.meta().layers()) {
        lines.add(promoteKept(l, taken.upper(l)));
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("the cache layers kept by {} were not taken: {}", check, e.toString());
      lines.add("cache: the layers the pass kept were not taken: " + e.getMessage());
    } finally {
      deleteQuietly(dir, "taken kept layers");
      ended(run);
    }
    return lines;
  }

  private String promoteKept(KeptLayers.Layer l, Path upper) {
    Path read;
    synchronized (this) {
      read = generation(l.name(), l.generation());
      if (currentOf(l.name()) != l.generation() || !Files.isDirectory(read)) {
        figures.notPromoted();
        return "cache "
            + l.path()
            + ": not promoted, the base moved on since the pass was kept: the next run warms it";
      }
      readers.merge(read, 1, Integer::sum);
    }
    try {
      return promote(l.name(), l.path(), read, upper, CacheRequest.NO_MARK);
    } catch (IOException | RuntimeException e) {
      figures.notPromoted();
      LOG.warn("cache {} kept was not promoted: {}", l.path(), e.toString());
      return "cache " + l.path() + ": not promoted: " + e.getMessage();
    } finally {
      release(l.name(), read);
    }
  }

  /** Forgets the layers the passes of {@code subject} kept: a pull closed without landing. */
  public void forgetKept(String subject) {
    kept.forget(subject, null);
  }

  /** Drops the kept layers over their limits; called on each sweep, as they also age. */
  public void expireKept() {
    kept.expire();
  }

  /** Sheds every kept set, for the disk floor. */
  Amount shedKept() {
    Amount shed = kept.shedAll();
    figures.shedKept(shed.count(), shed.bytes());
    return shed;
  }

  /**
   * Removes the caches of repository {@code repo} (as {@link CacheRequest#repo} names it), found
   * deleted: its bases no run reads, its kept layers and its bases' marks.
   *
   * @return the bases and kept sets removed, and their bytes
   */
  public Amount removeRepo(String repo) {
    String prefix = CacheNames.hash(repo) + ".";
    List<Path> gone = new ArrayList<>();
    try (DirectoryStream<Path> bases =
        Files.newDirectoryStream(root.resolve("bases"), prefix + "*")) {
      for (Path base : bases) {
        Path trash = moveAsideIfUnread(base);
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
      deleteQuietly(p, "a deleted repository's base");
    }
    Amount keptGone = kept.removeStartingWith(prefix);
    synchronized (this) {
      marks.removeStartingWith(prefix);
    }
    return new Amount(gone.size() + keptGone.count(), bytes + keptGone.bytes());
  }

  /**
   * The current bases and the bytes of their files, for gauges. A base not sized since the start is
   * sized once, outside the lock; promotion sizes the rest as it goes.
   */
  public Amount bases() {
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> bases = Files.newDirectoryStream(root.resolve("bases"))) {
      for (Path b : bases) {
        names.add(b.getFileName().toString());
      }
    } catch (IOException e) {
      LOG.debug("could not list the caches' bases: {}", e.toString());
    }
    long bytes = 0;
    for (String name : names) {
      Long known;
      Path gen;
      synchronized (this) {
        known = baseBytes.get(name);
        gen = generation(name, currentOf(name));
      }
      if (known == null) {
        try {
          known = Files.isDirectory(gen) ? Layers.sizeOf(gen) : 0L;
        } catch (IOException e) {
          known = 0L;
        }
        synchronized (this) {
          baseBytes.putIfAbsent(name, known);
        }
      }
      bytes += known;
    }
    return new Amount(names.size(), bytes);
  }

  /** The kept sets and the bytes of their files, for gauges. */
  public Amount kept() {
    return kept.sizes();
  }

  /** The mark of base {@code name} ({@link BaseMarks}), -1 for none. */
  synchronized long markOf(String name) {
    return marks.of(name);
  }

  // Bookkeeping.

  private Path empty() {
    return root.resolve("empty");
  }

  private Path base(String name) {
    return root.resolve("bases").resolve(name);
  }

  Path generation(String name, int gen) {
    return base(name).resolve(Integer.toString(gen));
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

  static void deleteQuietly(Path p, String what) {
    try {
      Layers.deleteTree(p);
      LOG.debug("removed {} {}", what, p);
    } catch (IOException e) {
      LOG.warn("could not remove {} {}: {}", what, p, e.toString());
    }
  }
}
