package dev.knotless.runner.exec.cache;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * kept/&lt;h(check)&gt;/{meta,&lt;i&gt;/}                          a pass's kept layers ({@link KeptLayers})
 * marks.json                                           marks of bases pulls made ({@link BaseMarks})
 * trash/                                               what is being removed
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

  static final String MAKING = Generations.MAKING;

  private final Path root;
  private final long maxBytes;
  private final Generations gens;
  private final Set<String> liveRuns = new HashSet<>();
  private final CacheFigures figures = new CacheFigures();
  private final KeptLayers kept;
  private final BaseMarks marks;
  private final CacheSweeps sweeps = new CacheSweeps(this);

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
    this.gens = new Generations(this.root);
    Files.createDirectories(this.root.resolve("bases"));
    Files.createDirectories(this.root.resolve("runs"));
    Files.createDirectories(this.root.resolve("images"));
    Files.createDirectories(empty());
    this.kept = new KeptLayers(this, maxBytes, clock, figures);
    this.marks = new BaseMarks(this.root.resolve("marks.json"));
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
        boolean vanished = false;
        if (request.use() == CacheUse.APART) {
          lower = empty();
          base = null;
          figures.opened(false);
        } else {
          Generations.Acquired a;
          synchronized (this) {
            a = gens.acquire(name);
          }
          lower = a.dir();
          vanished = a.vanished();
          base = name;
          figures.opened(!Layers.isEmpty(lower));
          if (vanished) {
            LOG.warn("cache {}: its base {} was gone from disk; made afresh, empty", path, lower);
          }
        }
        Files.writeString(runDir.resolve("lowers"), lower + "\n", UTF_8, CREATE, APPEND);
        Path image = imageFiles == null ? null : imageFiles.apply(path);
        caches.add(path, base, lower, image, runDir.resolve(Integer.toString(i)), vanished);
      }
      return caches;
    } catch (IOException | RuntimeException e) {
      caches.finish(false);
      throw e;
    }
  }

  /** Counts one reader of {@code gen} fewer, and removes it if it was the last of an old one. */
  void release(String name, Path gen) {
    boolean remove;
    synchronized (this) {
      remove = gens.release(name, gen);
    }
    if (remove) {
      deleteQuietly(gen, "an old generation no run reads");
    }
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
      gen = gens.startMaking(name);
      next = gens.making(name, gen);
    }
    try {
      long started = System.nanoTime();
      Layers.cloneLinked(read, next);
      long moved = Layers.apply(upper, next);
      long size = Layers.sizeOf(next);
      synchronized (this) {
        // What is not made current goes in the finally, outside the lock.
        if (!gens.isCurrent(name, read)) {
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
          gens.makeEmptyCurrent(name, gen);
          marks.set(name, mark);
          return "cache "
              + path
              + ": not promoted, the new base ("
              + size
              + " bytes) is over --cache-max ("
              + maxBytes
              + " bytes): the next run starts afresh";
        }
        gens.makeCurrent(name, gen, size);
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
        gens.doneMaking(next);
      }
      if (Files.exists(next)) {
        deleteQuietly(next, "a generation not made current");
      }
    }
  }

  /**
   * Removes what runs no longer going left: their overlays (unmounted first; one still busy is
   * left, and the generations it reads are then kept too), half-made generations, generations
   * neither current nor read, and kept layers over their limits. Called at start and on each sweep;
   * never touches a live run's.
   */
  public void removeLeftovers() {
    sweeps.removeLeftovers(run -> false);
  }

  /**
   * As {@link #removeLeftovers()}, but the overlays of a run that {@code spare} names are left
   * mounted, and the generations they read kept: a pod made by a runner that stopped still has
   * them, as volumes, until the runner that adopts it ends its run ({@link #removeRun}).
   */
  public void removeLeftovers(java.util.function.Predicate<String> spare) {
    sweeps.removeLeftovers(spare);
  }

  /**
   * Unmounts and removes what run {@code run} left under {@code runs/} when it is not a run of this
   * store's (a stopped runner's, whose pod was adopted), and says whether there was any.
   */
  public boolean removeRun(String run) {
    Path dir = root.resolve("runs").resolve(run);
    if (live(run) || !Files.isDirectory(dir)) {
      return false;
    }
    try {
      return RunCaches.removeLeftover(dir);
    } catch (IOException e) {
      LOG.warn("could not remove the cache overlays of run {}: {}", run, e.toString());
      return false;
    }
  }

  /**
   * Removes the caches of repository {@code repo} (as {@link CacheRequest#repo} names it), found
   * deleted: its bases no run reads, its kept layers and its bases' marks.
   *
   * @return the bases and kept sets removed, and their bytes
   */
  public Amount removeRepo(String repo) {
    return sweeps.removeRepo(repo);
  }

  /** The current bases and the bytes of their files, for gauges. */
  public Amount bases() {
    return sweeps.bases();
  }

  /**
   * Moves base {@code base} out of the way, under {@code trash/}, if no run reads it and none
   * promotes it, so its next run starts afresh; the caller removes it. Null if it stays.
   */
  synchronized Path moveAsideIfUnread(Path base) throws IOException {
    return gens.moveAsideIfUnread(base);
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
    return kept.promote(check);
  }

  /**
   * Counts one more reader of generation {@code gen} of {@code name} if it is current, for a kept
   * layer written over it to be promoted; null, counting none, if it is not.
   */
  synchronized Path acquireIfCurrent(String name, int gen) {
    return gens.acquireIfCurrent(name, gen);
  }

  /** Counts run {@code run} as going, or as ended: a live run's overlays are never swept. */
  synchronized void live(String run, boolean going) {
    if (going) {
      liveRuns.add(run);
    } else {
      liveRuns.remove(run);
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

  /** The kept sets and the bytes of their files, for gauges. */
  public Amount kept() {
    return kept.sizes();
  }

  /** The mark of base {@code name} ({@link BaseMarks}), -1 for none. */
  synchronized long markOf(String name) {
    return marks.of(name);
  }

  // Bookkeeping, shared with CacheSweeps.

  synchronized boolean live(String run) {
    return liveRuns.contains(run);
  }

  /** Whether generation {@code gen} of {@code name} is neither current, read, made nor pinned. */
  synchronized boolean unused(String name, Path gen, Set<Path> pinned) {
    return gens.unused(name, gen, pinned);
  }

  /** The known size of base {@code name}'s current generation, or null, and where it is. */
  synchronized Map.Entry<Long, Path> knownSize(String name) {
    return gens.knownSize(name);
  }

  synchronized void sized(String name, long bytes) {
    gens.sized(name, bytes);
  }

  KeptLayers keptLayers() {
    return kept;
  }

  synchronized void removeMarks(String prefix) {
    marks.removeStartingWith(prefix);
  }

  Path empty() {
    return root.resolve("empty");
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
