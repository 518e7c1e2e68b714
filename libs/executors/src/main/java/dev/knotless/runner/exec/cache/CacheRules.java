package dev.knotless.runner.exec.cache;

/**
 * Who may read and write the caches (runner.md, "Across trust levels"), as a pure function. Only a
 * push to the default branch promotes; an untrusted run of a workflow asking for secrets reads its
 * caches apart; every other run reads the shared bases and keeps nothing. Stateless.
 */
public final class CacheRules {

  private CacheRules() {}

  /**
   * The use of a push's run.
   *
   * @param hasCaches whether the workflow lists any cache path
   * @param defaultBranch whether the push moved the repository's default branch (and is not a run
   *     asked for by name, whose variables may make a build no push would)
   */
  public static CacheUse push(boolean hasCaches, boolean defaultBranch) {
    if (!hasCaches) {
      return CacheUse.NONE;
    }
    return defaultBranch ? CacheUse.PROMOTE_ON_PASS : CacheUse.READ;
  }

  /**
   * The use of a pull's or a batch's run: it never promotes by itself here, as no pull is trusted
   * enough to write a base on a runner that also runs pushes. A trusted pass a push may take keeps
   * its layers instead ({@link CacheRequest#keptAs}, decided where the pass is kept), and on a
   * {@code --pulls-only} runner promotes with a mark ({@link CacheRequest#promotingMarked}).
   *
   * @param trusted whether every writer of the pull is the owner or a collaborator; false for an
   *     agent's pull, a stranger's, or when the caller does not know
   * @param asksSecrets whether the workflow asks for any secret
   */
  public static CacheUse pull(boolean hasCaches, boolean trusted, boolean asksSecrets) {
    if (!hasCaches) {
      return CacheUse.NONE;
    }
    return !trusted && asksSecrets ? CacheUse.APART : CacheUse.READ;
  }
}
