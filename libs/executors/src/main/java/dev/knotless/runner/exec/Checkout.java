package dev.knotless.runner.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Makes a run's checkout: a clone of the mirror at the commit, detached, that needs nothing outside
 * itself (no alternates), so git works in a container that sees only the checkout.
 *
 * <p>Its objects are either hard links to the mirror's ({@code git clone --local}: no copy, for the
 * shell executor, whose steps run as the runner's user and could write the mirror anyway) or copies
 * ({@code --no-hardlinks}: for containers, whose root could otherwise write through a link into the
 * mirror every later run of the repository is checked out from). Hard links need the mirror and the
 * work root on one file system; across two, the clone fails and the run is an error. Thread-safe
 * (no state).
 */
final class Checkout {

  /** How long one git command may take before the run is an error. */
  static final long GIT_TIMEOUT_SECONDS = 600;

  /** Why a checkout could not be made; the message is for the check's log. */
  static final class Failed extends Exception {
    Failed(String message) {
      super(message);
    }
  }

  private Checkout() {}

  /**
   * Clones {@code mirror} into {@code checkout} and checks out {@code commit}; git's output goes to
   * {@code gitOutput}, so that a git that hangs cannot block the reading of it.
   */
  static void make(Path mirror, String commit, Path checkout, Path gitOutput, boolean linkObjects)
      throws Failed, IOException, InterruptedException {
    List<String> clone = new java.util.ArrayList<>(List.of("git", "clone", "--local"));
    if (!linkObjects) {
      clone.add("--no-hardlinks");
    }
    clone.addAll(List.of("--no-checkout", "--quiet", "--", mirror.toString(), checkout.toString()));
    for (int attempt = 1; ; attempt++) {
      try {
        git(gitOutput, clone, "could not clone the mirror " + mirror);
        break;
      } catch (Failed e) {
        // A local clone copies the mirror's files one by one; a fetch into the mirror meanwhile
        // makes and removes its lock files, and one gone between listing and copying fails the
        // clone. That passes as soon as the fetch is done: try again, a little later.
        if (attempt == CLONE_ATTEMPTS || !vanishedMidCopy(e.getMessage())) {
          throw e;
        }
        removeTree(checkout);
        Thread.sleep(100L * attempt);
      }
    }
    git(
        gitOutput,
        List.of("git", "-C", checkout.toString(), "checkout", "--detach", "--quiet", commit),
        "could not check out " + commit);
  }

  /** How many times a clone is tried when a file of the mirror vanished as it was copied. */
  static final int CLONE_ATTEMPTS = 5;

  /** Whether git's message says a file it was copying from the mirror was gone. */
  static boolean vanishedMidCopy(String message) {
    return message.contains("failed to copy file") && message.contains("No such file or directory");
  }

  private static void removeTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static void git(Path output, List<String> command, String what)
      throws Failed, IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    Map<String, String> env = pb.environment();
    // A GIT_DIR or GIT_WORK_TREE the runner inherited would point git elsewhere.
    env.keySet().removeIf(k -> k.startsWith("GIT_"));
    env.put("GIT_TERMINAL_PROMPT", "0");
    pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    Process p = pb.start();
    try {
      if (!p.waitFor(GIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new Failed(what + ": git took over " + GIT_TIMEOUT_SECONDS + "s");
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
    }
    if (p.exitValue() != 0) {
      String said = Files.readString(output, StandardCharsets.UTF_8).strip();
      throw new Failed(
          what + ": git exited with " + p.exitValue() + (said.isEmpty() ? "" : ": " + said));
    }
  }
}
