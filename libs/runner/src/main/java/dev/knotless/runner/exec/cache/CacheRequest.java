package dev.knotless.runner.exec.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one run asks of the caches: whose they are (repository and workflow), the paths in the
 * container, and how the run may use them. Immutable.
 *
 * @param repo the repository, part of every cache's name: the planner gives its owner's DID and
 *     record key, which a rename keeps
 * @param workflow the workflow's name, part of every cache's name
 * @param paths the workflow's {@code cache} paths as written; a relative one is under the checkout
 *     ({@code /work})
 * @param use how the run uses them
 */
public record CacheRequest(String repo, String workflow, List<String> paths, CacheUse use) {

  /** A run with no caches. */
  public static final CacheRequest NONE = new CacheRequest("", "", List.of(), CacheUse.NONE);

  /** Where a relative cache path is, as the container sees the checkout. */
  public static final String CHECKOUT = "/work";

  /** Checks the values and copies the list. */
  public CacheRequest {
    Objects.requireNonNull(repo, "repo");
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(use, "use");
    paths = List.copyOf(paths);
    if (paths.isEmpty()) {
      use = CacheUse.NONE;
    }
  }

  /** The paths as the container sees them: absolute, with no {@code .} or empty segment. */
  public List<String> containerPaths() {
    List<String> out = new ArrayList<>();
    for (String p : paths) {
      out.add(containerPath(p));
    }
    return out;
  }

  static String containerPath(String path) {
    String whole = path.startsWith("/") ? path : CHECKOUT + "/" + path;
    StringBuilder b = new StringBuilder();
    for (String seg : whole.split("/")) {
      if (seg.isEmpty() || seg.equals(".")) {
        continue;
      }
      if (seg.equals("..")) {
        throw new IllegalArgumentException("a cache path may not hold ..: " + path);
      }
      b.append('/').append(seg);
    }
    if (b.length() == 0) {
      throw new IllegalArgumentException("a cache path may not be the root: " + path);
    }
    return b.toString();
  }
}
