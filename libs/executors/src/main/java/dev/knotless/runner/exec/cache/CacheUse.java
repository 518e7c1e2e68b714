package dev.knotless.runner.exec.cache;

/** How one run uses its workflow's caches; {@link CacheRules} decides it. */
public enum CacheUse {
  /** No cache: the workflow lists none, or the executor keeps none (shell). */
  NONE,
  /** Reads the current bases; what it writes goes when the run ends. */
  READ,
  /** Reads the current bases, and a pass makes its writes the bases' next generation. */
  PROMOTE_ON_PASS,
  /**
   * Reads the current bases, and a pass keeps its writes by its check, for the push that lands it
   * to promote ({@link KeptLayers}): a trusted pull's or batch's run of a workflow a push may
   * reuse.
   */
  KEEP_ON_PASS,
  /**
   * Reads bases nothing writes, so always empty, and keeps nothing: an untrusted run of a workflow
   * that asks for secrets, which must not see what a run with secrets left.
   */
  APART;

  /** Whether a run of this use mounts caches at all. */
  public boolean mounts() {
    return this != NONE;
  }
}
