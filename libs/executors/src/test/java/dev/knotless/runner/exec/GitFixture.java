package dev.knotless.runner.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A small bare repository with one commit, made with the real git, for the executor's tests. */
public final class GitFixture {

  public final Path root;
  public final Path mirror;
  public final String commit;

  private GitFixture(Path root, Path mirror, String commit) {
    this.root = root;
    this.mirror = mirror;
    this.commit = commit;
  }

  /**
   * As {@link #create}, under a new directory of the temporary directory named from {@code prefix}.
   */
  public static GitFixture createTemp(String prefix) throws IOException, InterruptedException {
    Path tmp = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    return create(Files.createTempDirectory(tmp, prefix));
  }

  /** Removes {@link #root} and all under it. */
  public void delete() throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** A run of {@code steps} at the fixture's commit, from its mirror. */
  public RunSpec spec(ExecStep... steps) {
    return RunSpec.of(mirror, commit, List.of(steps));
  }

  /** Makes {@code root/src} with one commit and {@code root/mirror.git}, a bare clone of it. */
  public static GitFixture create(Path root) throws IOException, InterruptedException {
    Path src = root.resolve("src");
    Files.createDirectories(src);
    git(src, "init", "--quiet", "--initial-branch=main");
    Files.writeString(src.resolve("README"), "hello from the repository\n");
    git(src, "add", "README");
    git(
        src,
        "-c",
        "user.name=Test",
        "-c",
        "user.email=test@example.com",
        "commit",
        "--quiet",
        "-m",
        "first");
    String commit = git(src, "rev-parse", "HEAD").strip();
    Path mirror = root.resolve("mirror.git");
    git(root, "clone", "--quiet", "--bare", src.toString(), mirror.toString());
    return new GitFixture(root, mirror, commit);
  }

  public static String git(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("GIT_"));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(command + " failed: " + out);
    }
    return out;
  }
}
