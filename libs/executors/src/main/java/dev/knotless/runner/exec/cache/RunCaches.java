package dev.knotless.runner.exec.cache;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's cache overlays: for each cache path an overlayfs mount whose lower layers are the
 * base's generation the run reads (then the image's own files at that path, if any) and whose upper
 * layer takes the run's writes. The executor binds each {@link Mount} into the run's container,
 * removes the container, then {@link #finish}es: the overlays are unmounted, a passing run allowed
 * to promote makes its upper layers the bases' next generations, and the rest goes. Used by the
 * run's own thread; {@link #finish} may be called more than once.
 */
public final class RunCaches {

  private static final Logger LOG = LoggerFactory.getLogger(RunCaches.class);

  /** How long an unmount is retried while the mount is busy, as a removed container lets go. */
  private static final int BUSY_RETRIES = 50;

  /** One path's overlay, as the container mounts it. */
  public record Mount(Path host, String containerPath) {}

  private record Overlay(String path, String base, Path lower, Path dir, boolean vanished) {
    Path upper() {
      return dir.resolve("upper");
    }

    Path merged() {
      return dir.resolve("merged");
    }
  }

  /** One path's overlay as the runner sees it: its merged view, and the container path. */
  public record View(Path merged, String containerPath, boolean promotable) {}

  private static final RunCaches NONE = new RunCaches(null, CacheRequest.NONE, "", null);

  private final CacheStore store;
  private final CacheRequest request;
  private final String run;
  private final Path runDir;
  private final List<Overlay> overlays = new ArrayList<>();
  private boolean finished;

  RunCaches(CacheStore store, CacheRequest request, String run, Path runDir) {
    this.store = store;
    this.request = request;
    this.run = run;
    this.runDir = runDir;
  }

  /** A run with no caches: nothing to mount, nothing to finish. */
  public static RunCaches none() {
    return NONE;
  }

  /** The overlays to bind into the container, in the workflow's order. */
  public List<Mount> mounts() {
    return overlays.stream().map(o -> new Mount(o.merged(), o.path())).toList();
  }

  /**
   * The overlays' merged views, in the workflow's order, for an executor that copies them into its
   * run and back rather than mounting them (the pod executor): {@code promotable} when what the run
   * leaves there may become a base or be kept.
   */
  public List<View> views() {
    boolean writes =
        request.use() == CacheUse.PROMOTE_ON_PASS || request.use() == CacheUse.KEEP_ON_PASS;
    return overlays.stream()
        .map(o -> new View(o.merged(), o.path(), writes && o.base() != null))
        .toList();
  }

  /** What the run's log says of its caches as the container starts. */
  public List<String> describe() {
    List<String> lines = new ArrayList<>();
    for (Overlay o : overlays) {
      if (o.vanished()) {
        lines.add(
            "cache "
                + o.path()
                + ": its base was gone from the runner's disk, so this run starts cold");
      }
      lines.add(
          "cache "
              + o.path()
              + (o.base() == null
                  ? ": read apart, empty (an untrusted run of a workflow asking for secrets)"
                  : ": from the base's generation " + o.lower().getFileName()));
    }
    return lines;
  }

  void add(String path, String base, Path lower, Path image, Path dir, boolean vanished)
      throws IOException {
    Overlay o = new Overlay(path, base, lower, dir, vanished);
    overlays.add(o);
    Files.createDirectories(o.upper());
    Files.createDirectories(dir.resolve("work"));
    Files.createDirectories(o.merged());
    String lowers = lower.toString();
    if (image != null && Files.isDirectory(image) && !Layers.isEmpty(image)) {
      // The image's files show through only where the base has nothing: it is the lowest layer.
      lowers += ":" + image;
    }
    Native.mountOverlay(
        o.merged(),
        "lowerdir="
            + lowers
            + ",upperdir="
            + o.upper()
            + ",workdir="
            + dir.resolve("work")
            // Promotion reads plain whiteouts and opaque marks: no redirects, no metadata-only
            // copies.
            + ",redirect_dir=off,metacopy=off");
  }

  /**
   * Ends the run's use of its caches, once its container is gone: unmounts every overlay, promotes
   * its upper layers if {@code passed} and the run may promote, releases the generations it read,
   * and removes its layers. Never throws: what fails is logged and said in the lines returned.
   *
   * @return lines for the run's log (what was promoted, what was not and why)
   */
  public List<String> finish(boolean passed) {
    if (store == null) {
      return List.of();
    }
    synchronized (this) {
      if (finished) {
        return List.of();
      }
      finished = true;
    }
    List<String> lines = new ArrayList<>();
    boolean unmounted = true;
    for (Overlay o : overlays) {
      try {
        unmount(o.merged());
      } catch (IOException e) {
        unmounted = false;
        lines.add("cache " + o.path() + ": could not unmount its overlay: " + e.getMessage());
      }
    }
    boolean promote = passed && unmounted && request.use() == CacheUse.PROMOTE_ON_PASS;
    if (passed && unmounted && request.use() == CacheUse.KEEP_ON_PASS) {
      lines.addAll(keep());
    }
    for (Overlay o : overlays) {
      if (promote && o.base() != null) {
        try {
          lines.add(store.promote(o.base(), o.path(), o.lower(), o.upper(), request.mark()));
        } catch (IOException | RuntimeException e) {
          LOG.warn("cache {} of run {} was not promoted: {}", o.path(), run, e.toString());
          store.figures().notPromoted();
          lines.add("cache " + o.path() + ": not promoted: " + e.getMessage());
        }
      }
      if (o.base() != null) {
        store.release(o.base(), o.lower());
      }
    }
    if (unmounted) {
      CacheStore.deleteQuietly(runDir, "the run's cache layers");
    }
    store.live(run, false);
    return lines;
  }

  /** Keeps the layers of a pass by its check, for the push that lands it; lines for the log. */
  private List<String> keep() {
    List<KeptLayers.Layer> layers = new ArrayList<>();
    List<Path> uppers = new ArrayList<>();
    for (int i = 0; i < overlays.size(); i++) {
      Overlay o = overlays.get(i);
      if (o.base() != null) {
        int gen = Integer.parseInt(o.lower().getFileName().toString());
        layers.add(new KeptLayers.Layer(i, o.base(), gen, o.path()));
        uppers.add(o.upper());
      }
    }
    try {
      return store.keep(request.keepAs(), request.workflow(), layers, uppers);
    } catch (IOException | RuntimeException e) {
      LOG.warn("the cache layers of run {} were not kept: {}", run, e.toString());
      return List.of("cache: the run's layers were not kept: " + e.getMessage());
    }
  }

  /** Unmounts {@code merged}, retrying a while if it is busy; false if nothing was mounted. */
  static boolean unmount(Path merged) throws IOException {
    for (int i = 0; ; i++) {
      try {
        return Native.unmount(merged, 0);
      } catch (IOException busy) {
        if (i >= BUSY_RETRIES) {
          throw busy;
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw busy;
        }
      }
    }
  }

  /**
   * Unmounts and removes what a run no longer going left under {@code runDir}. Returns false, and
   * leaves it all, if an overlay is still busy (something still uses it).
   */
  static boolean removeLeftover(Path runDir) throws IOException {
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(runDir, Files::isDirectory)) {
      for (Path d : dirs) {
        Path merged = d.resolve("merged");
        try {
          if (Native.unmount(merged, 0)) {
            LOG.info("unmounted a leftover cache overlay {}", merged);
          }
        } catch (IOException busy) {
          LOG.warn("a leftover cache overlay {} is still in use: {}", merged, busy.getMessage());
          return false;
        }
      }
    }
    Layers.deleteTree(runDir);
    return true;
  }
}
