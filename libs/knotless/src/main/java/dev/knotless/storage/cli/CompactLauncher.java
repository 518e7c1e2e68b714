package dev.knotless.storage.cli;

import dev.knotless.storage.KnotlessRepos;

/**
 * Starts {@code knotless repo compact --due} after an owner's push landed, as {@code
 * KNOTLESS_COMPACT} says: detached in the background (the default), inline, or not at all.
 */
public final class CompactLauncher {
  private CompactLauncher() {}

  /** Runs after a push through the helper landed; never fails the push. */
  public static void afterPush(KnotlessRepos repos, String url) {}
}
