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
 * @param keepAs under {@link CacheUse#KEEP_ON_PASS}, the check and subject a pass keeps its layers
 *     by; null otherwise
 * @param mark under {@link CacheUse#PROMOTE_ON_PASS} for a pull on a {@code --pulls-only} runner,
 *     the default branch's generation at the tip the pull merged with, which the base it makes is
 *     marked with ({@link BaseMarks}); {@link #NO_MARK} for a push
 */
public record CacheRequest(
    String repo, String workflow, List<String> paths, CacheUse use, KeptAs keepAs, long mark) {

  /** A run with no caches. */
  public static final CacheRequest NONE = new CacheRequest("", "", List.of(), CacheUse.NONE);

  /** The mark of a base a push makes: none. */
  public static final long NO_MARK = -1;

  /**
   * What a pass's kept layers are known by.
   *
   * @param check the AT-URI of the run's check, which a push taking the pass names
   * @param subject the pull's AT-URI, or {@code queue <ref>} for a batch
   */
  public record KeptAs(String check, String subject) {
    public KeptAs {
      Objects.requireNonNull(check, "check");
      Objects.requireNonNull(subject, "subject");
    }

    /** Whether the layers are a batch's rather than a pull's. */
    public boolean batch() {
      return subject.startsWith("queue ");
    }
  }

  /** A request keeping nothing and marking nothing. */
  public CacheRequest(String repo, String workflow, List<String> paths, CacheUse use) {
    this(repo, workflow, paths, use, null, NO_MARK);
  }

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
    if (use == CacheUse.KEEP_ON_PASS && keepAs == null) {
      throw new IllegalArgumentException("layers kept on a pass need the check they are kept by");
    }
    if (use != CacheUse.KEEP_ON_PASS) {
      keepAs = null;
    }
    if (use != CacheUse.PROMOTE_ON_PASS || mark < 0) {
      mark = NO_MARK;
    }
  }

  /**
   * This request with a pass's layers kept as {@code keepAs}, if it reads the shared bases; one
   * reading apart, promoting or with no caches is left as it is.
   */
  public CacheRequest keptAs(KeptAs keepAs) {
    return use == CacheUse.READ
        ? new CacheRequest(repo, workflow, paths, CacheUse.KEEP_ON_PASS, keepAs, NO_MARK)
        : this;
  }

  /**
   * This request promoting on a pass, the bases it makes marked {@code mark}, if it reads the
   * shared bases: a trusted pull's on a {@code --pulls-only} runner.
   */
  public CacheRequest promotingMarked(long mark) {
    return use == CacheUse.READ || use == CacheUse.KEEP_ON_PASS
        ? new CacheRequest(repo, workflow, paths, CacheUse.PROMOTE_ON_PASS, null, mark)
        : this;
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
