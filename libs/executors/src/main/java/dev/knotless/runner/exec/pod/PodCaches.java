package dev.knotless.runner.exec.pod;

import dev.knotless.runner.exec.RunPaths;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.StepHost.StartFailed;
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.RunCaches;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pod run's caches. The bases stay on the runner's disk, in its {@link CacheStore}, which
 * decides everything as it does for a container: which generation the run reads, whether it reads
 * apart, and whether a pass promotes, keeps or drops what it wrote. The pod gets them through the
 * copy path its checkout takes: for each cache path the store mounts its overlay on the runner's
 * side (over what the image holds at that path, packed out of the pod first), and the overlay's
 * merged view is packed as tar and unpacked at the path in the pod. After a pass that may write a
 * base, the pod's path is packed back out and {@link TreeSync}ed into the merged view, so the
 * overlay's upper layer holds what the run changed, and {@link RunCaches#finish} takes it from
 * there.
 *
 * <p>With the caches kept on the node ({@link #onNode}), the store and its overlays are on the node
 * the pod runs on: the overlays are mounted before the pod is made and reach it as hostPath volumes
 * at their paths, so the run writes straight into each overlay's upper layer and nothing is copied
 * either way. Only absolute paths outside the pod's own volumes go so (a checkout's unpack empties
 * /work, which a volume under it would not survive); a run naming another path copies all. Used by
 * the run's own thread.
 */
final class PodCaches {

  private static final Logger LOG = LoggerFactory.getLogger(PodCaches.class);

  private final CacheStore store;
  private final CacheRequest request;
  private final RunPaths paths;
  private final List<String> notes = new ArrayList<>();
  private final boolean mounted;
  private final String node;
  private RunCaches caches = RunCaches.none();
  private boolean copiedOut;
  private String adoptedRun;

  private PodCaches(
      CacheStore store, CacheRequest request, RunPaths paths, boolean mounted, String node) {
    this.store = store;
    this.request = request;
    this.paths = paths;
    this.mounted = mounted;
    this.node = node;
  }

  /**
   * The caches of run {@code spec}, or null when it has none or the executor keeps none; {@code
   * onNode} when the store is on the node the run's pod is then held to, {@code node} (null when
   * the cluster has one node, as the test kubelet's).
   */
  static PodCaches of(CacheStore store, RunSpec spec, RunPaths paths, boolean onNode, String node) {
    CacheRequest request = spec.options().get(CacheRequest.class, CacheRequest.NONE);
    if (store == null || !request.use().mounts()) {
      return null;
    }
    boolean mounted = onNode && request.containerPaths().stream().allMatch(PodCaches::own);
    return new PodCaches(store, request, paths, mounted, node);
  }

  /** The node a pod with these caches as volumes is held to, or null for any. */
  String node() {
    return node;
  }

  /**
   * Whether {@code path} can be a volume of its own: absolute, and under no volume of the pod's.
   */
  static boolean own(String path) {
    return path.startsWith("/")
        && !path.equals("/")
        && !under(path, Launcher.WORK)
        && !under(path, Launcher.ROOT);
  }

  private static boolean under(String path, String dir) {
    return path.equals(dir) || path.startsWith(dir + "/");
  }

  /** Whether the caches reach the pod as volumes of the node rather than by copy. */
  boolean mounted() {
    return mounted;
  }

  /**
   * Opens the run's overlays on the node before its pod is made, and gives them as the pod's
   * volumes. The image's files at a path are not below the base (the pod does not exist yet to read
   * them from): the volume hides them.
   */
  List<RunPod.HostMount> mountOnNode() throws IOException {
    synchronized (this) {
      caches = store.open(request, paths.runName(), null);
    }
    List<RunPod.HostMount> mounts = new ArrayList<>();
    for (RunCaches.View v : caches.views()) {
      mounts.add(new RunPod.HostMount(v.merged().toString(), v.containerPath()));
    }
    return mounts;
  }

  /**
   * For an adopted pod whose volumes are the overlays of run {@code run} of a runner that stopped:
   * its caches are not this run's, so nothing of them is kept, and once the pod is gone {@link
   * #finish} removes them.
   */
  void adoptedOverlaysOf(String run) {
    adoptedRun = run;
  }

  /**
   * Opens the run's caches and unpacks each at its path in pod {@code pod}, once the checkout is
   * there (a relative path is under it). Called again, for a pod adopted before its steps began, it
   * only copies them in again.
   */
  void restore(PodApi api, String pod, Consumer<String> log)
      throws StartFailed, InterruptedException {
    long started = System.nanoTime();
    List<String> wanted = request.containerPaths();
    if (mounted) {
      caches.describe().forEach(log);
      for (RunCaches.View v : caches.views()) {
        log.accept("cache " + v.containerPath() + ": a volume of the node, nothing copied");
      }
      return;
    }
    try {
      synchronized (this) {
        if (caches == RunCaches.none()) {
          caches =
              store.open(
                  request,
                  paths.runName(),
                  path -> imageFiles(api, pod, path, wanted.indexOf(path)));
          caches.describe().forEach(log);
        }
      }
      List<RunCaches.View> views = caches.views();
      for (int i = 0; i < views.size(); i++) {
        RunCaches.View v = views.get(i);
        long begin = System.nanoTime();
        PodCopies.treeIn(
            api,
            pod,
            v.merged(),
            paths.root().resolve("cache-" + i + ".tar"),
            CopyScripts.cacheInCommand(v.containerPath()),
            "cache " + v.containerPath());
        log.accept(
            "cache "
                + v.containerPath()
                + ": copied into the pod ("
                + (System.nanoTime() - begin) / 1_000_000
                + " ms)");
      }
    } catch (IOException | UncheckedIOException | PodCopies.Refused e) {
      throw new StartFailed("could not restore the run's caches: " + e.getMessage(), e);
    }
    LOG.debug(
        "restored {} caches in pod {} in {} ms",
        wanted.size(),
        pod,
        (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * What the image (or, for a relative path, the checkout) holds at {@code path} in the pod, packed
   * out into the run's directory: the lowest layer of that path's overlay, so that what the run
   * leaves of it unchanged is not taken for the run's own writes.
   */
  private Path imageFiles(PodApi api, String pod, String path, int index) {
    Path dir = paths.root().resolve("cache-image").resolve(Integer.toString(index));
    try {
      PodCopies.treeOut(api, pod, path, dir, store.maxBytes(), "image's files at " + path);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted while reading " + path, e));
    }
  }

  /**
   * Brings what the run left at each cache path it may write back into that path's overlay, after
   * its steps passed and before its pod goes. What cannot be copied is said in the log, and nothing
   * of the run is then promoted or kept; the run itself still passes.
   */
  void copyOut(PodApi api, String pod) throws InterruptedException {
    if (mounted) {
      // The run wrote into the overlays themselves: their upper layers are its changes.
      copiedOut = true;
      return;
    }
    List<RunCaches.View> views = caches.views();
    boolean whole = true;
    for (int i = 0; i < views.size(); i++) {
      RunCaches.View v = views.get(i);
      if (!v.promotable()) {
        continue;
      }
      Path staging = paths.root().resolve("cache-out").resolve(Integer.toString(i));
      try {
        long begin = System.nanoTime();
        PodCopies.treeOut(
            api, pod, v.containerPath(), staging, store.maxBytes(), "cache " + v.containerPath());
        int changed = TreeSync.sync(staging, v.merged());
        notes.add(
            "cache "
                + v.containerPath()
                + ": copied out of the pod, "
                + changed
                + " entries changed ("
                + (System.nanoTime() - begin) / 1_000_000
                + " ms)");
      } catch (IOException e) {
        whole = false;
        LOG.warn("cache {} of pod {} was not copied out: {}", v.containerPath(), pod, e.toString());
        notes.add(
            "cache "
                + v.containerPath()
                + ": not copied out of the pod, so nothing of this run is kept: "
                + e.getMessage());
      } finally {
        deleteQuietly(staging);
      }
    }
    copiedOut = whole;
  }

  /**
   * Ends the run's use of its caches once its pod is gone: a pass whose writes were copied out
   * promotes or keeps them as the store decides. Never throws.
   *
   * @return lines for the end of the run's log
   */
  List<String> finish(boolean passed) {
    List<String> lines = new ArrayList<>(notes);
    notes.clear();
    RunCaches c;
    synchronized (this) {
      c = caches;
    }
    lines.addAll(c.finish(passed && copiedOut));
    if (adoptedRun != null && store.removeRun(adoptedRun)) {
      LOG.info("removed the cache overlays of run {}, whose pod this run adopted", adoptedRun);
    }
    return lines;
  }

  /** The paths the run names, as the pod sees them. */
  List<String> containerPaths() {
    return request.containerPaths();
  }

  private static void deleteQuietly(Path p) {
    try {
      if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
        try (var in = Files.list(p)) {
          for (Path c : in.toList()) {
            deleteQuietly(c);
          }
        }
      }
      Files.deleteIfExists(p);
    } catch (IOException e) {
      LOG.debug("could not remove {}: {}", p, e.toString());
    }
  }
}
