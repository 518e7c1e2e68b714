package dev.knotless.runner.pass;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code git status} of a checkout a run's steps wrote, without trusting anything the steps could
 * have written there but the files themselves.
 *
 * <p>The checkout's own {@code .git} is the steps' to write: its config can name an fsmonitor, a
 * filter driver or a pager, any of which git would run as the runner. So status is read through a
 * git directory the runner makes for the purpose: its config empty, its index read afresh from the
 * commit in the runner's mirror (objects through alternates), and the checkout only as the work
 * tree. A {@code .gitattributes} in the checkout may still name a filter, but no config defines
 * one, so none runs. git runs with no environment of the runner's but PATH, no system or global
 * config, and hooks and fsmonitor off. Stateless.
 */
final class CheckoutStatus {

  private static final long TIMEOUT_SECONDS = 600;

  private CheckoutStatus() {}

  /**
   * The {@code git status --porcelain=v1 -z} of {@code checkout} against {@code commit}, which must
   * be in {@code mirror}: every untracked file listed, renames as a delete and an add.
   */
  static byte[] porcelain(Path checkout, Path mirror, String commit) throws IOException {
    Path gitDir = Files.createTempDirectory("knotless-status-");
    try {
      git(gitDir, null, "init", "--quiet", "--bare", gitDir.toString());
      Files.writeString(
          gitDir.resolve("objects/info/alternates"),
          mirror.resolve("objects").toAbsolutePath() + "\n");
      git(gitDir, checkout, "read-tree", commit);
      return git(
          gitDir,
          checkout,
          "status",
          "--porcelain=v1",
          "-z",
          "--untracked-files=all",
          "--no-renames");
    } finally {
      deleteTree(gitDir);
    }
  }

  private static byte[] git(Path gitDir, Path workTree, String... args) throws IOException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "git",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.untrackedCache=false",
                "-c",
                "core.bare=false",
                "--git-dir=" + gitDir));
    if (workTree != null) {
      cmd.add("--work-tree=" + workTree);
    }
    cmd.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Map<String, String> env = pb.environment();
    String path = env.get("PATH");
    env.clear();
    env.put("PATH", path == null ? "/usr/local/bin:/usr/bin:/bin" : path);
    env.put("HOME", gitDir.toString());
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("GIT_CONFIG_GLOBAL", "/dev/null");
    env.put("GIT_TERMINAL_PROMPT", "0");
    env.put("LC_ALL", "C");
    Path err = gitDir.resolve("stderr");
    pb.redirectError(err.toFile());
    Process p = pb.start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    try {
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("git " + args[0] + " took over " + TIMEOUT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted during git " + args[0], e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          "git " + args[0] + " failed: " + Files.readString(err, StandardCharsets.UTF_8).strip());
    }
    return out.toByteArray();
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
