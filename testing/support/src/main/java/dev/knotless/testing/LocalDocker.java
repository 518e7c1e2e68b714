package dev.knotless.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The docker daemon and local images tests run steps in: {@code testing/docker/dockerd.sh start}
 * installs and starts a daemon when none answers, and {@code testing/docker/images.sh} imports the
 * images from Debian packages when missing. Both run once per test JVM; nothing is ever pulled from
 * a registry. Thread-safe.
 */
public final class LocalDocker {

  /** busybox-static's applets and nothing else. */
  public static final String BUSYBOX = "knotless-test/busybox:1";

  /** The busybox image with git from Debian's packages. */
  public static final String GIT = "knotless-test/git:1";

  /** A runtime name the harness's daemon registers for runc, standing in for gVisor's runsc. */
  public static final String SANDBOX_RUNTIME = "knotless-sandbox";

  /** A second such name, standing in for the runtime of trusted code. */
  public static final String TRUSTED_RUNTIME = "knotless-trusted";

  private static boolean ready;

  private LocalDocker() {}

  /**
   * Makes sure the daemon answers and the images are there.
   *
   * @throws IllegalStateException naming the script that failed and what it printed
   */
  public static synchronized void ensure() {
    if (ready) {
      return;
    }
    Path root = PdsLauncher.repoRoot();
    run(root.resolve("testing/docker/dockerd.sh").toString(), "start");
    run(root.resolve("testing/docker/images.sh").toString());
    String runtimes = run("docker", "info", "--format", "{{json .Runtimes}}");
    for (String name : List.of(SANDBOX_RUNTIME, TRUSTED_RUNTIME)) {
      if (!runtimes.contains("\"" + name + "\"")) {
        throw new IllegalStateException(
            "the docker daemon that answers has no runtime "
                + name
                + ": stop it and let testing/docker/dockerd.sh start one, or start it with"
                + " --add-runtime "
                + SANDBOX_RUNTIME
                + "=runc --add-runtime "
                + TRUSTED_RUNTIME
                + "=runc");
      }
    }
    ready = true;
  }

  private static String run(String... command) {
    try {
      Process p =
          new ProcessBuilder(List.of(command))
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IllegalStateException(
            String.join(" ", command)
                + " failed: "
                + new String(out, StandardCharsets.UTF_8).strip());
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(String.join(" ", command) + " could not run: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + String.join(" ", command), e);
    }
  }
}
