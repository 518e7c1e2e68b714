package dev.knotless.storage.cli;

import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.KnotlessUrl;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.push.PushResult;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a compaction after an owner's push landed, once it is due, as {@code KNOTLESS_COMPACT}
 * says: detached in the background (the default), inline, or not at all. The push counted the packs
 * beside its first write ({@link PushResult#packs()}), so a push below the threshold starts nothing
 * and costs no round trip. A push whose count is missing (the listing failed) starts {@code
 * knotless repo compact --due} ({@link CompactMain}), which counts again. A failure here never
 * fails the push that landed.
 */
public final class CompactLauncher {
  private static final Logger LOG = LoggerFactory.getLogger(CompactLauncher.class);

  private CompactLauncher() {}

  /** Starts a compaction of {@code url} after {@code push}, if one is due. */
  public static void afterPush(
      KnotlessRepos repos, String url, PushResult push, java.io.PrintStream err) {
    Integer packs = push.packs();
    if (packs != null && packs < repos.settings().compactThreshold()) {
      LOG.debug("{} packs, below the threshold of {}", packs, repos.settings().compactThreshold());
      return;
    }
    boolean dueOnly = packs == null;
    switch (repos.settings().compactMode()) {
      case OFF -> {}
      case INLINE -> {
        try {
          RepoAddress repo = repos.locate(KnotlessUrl.parse(url));
          CompactCommand.compactor(repos, repo).compact(repo, dueOnly);
        } catch (IOException e) {
          err.println("knotless: compaction after the push failed: " + e.getMessage());
        }
      }
      case BACKGROUND -> {
        // Through sh, which puts the compaction in the background and ends at once: a child still
        // running when this JVM exits would hold the exit up (see ProcessExit), and the push's
        // git would wait for it.
        List<String> cmd =
            new ArrayList<>(List.of("/bin/sh", "-c", "\"$@\" &", "knotless-compact"));
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CompactMain.class.getName());
        if (dueOnly) {
          cmd.add("--due");
        }
        cmd.add(url);
        try {
          ProcessBuilder pb = new ProcessBuilder(cmd);
          // The pusher's environment, its login among it (the same as this JVM's unless the
          // resident helper ran the push).
          pb.environment().putAll(repos.env());
          pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start()
              .waitFor();
        } catch (IOException e) {
          LOG.warn("could not start a background compaction: {}", e.getMessage());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
