package dev.knotless.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The docker daemon and local images tests run steps in: {@code testing/docker/dockerd.sh start}
 * installs Debian's docker.io and runsc and starts a daemon when none answers, and {@code
 * testing/docker/images.sh} imports the images from Debian packages when missing. Both run once per
 * test JVM; nothing is pulled from a public registry (tests that pull use a {@link LocalRegistry}).
 *
 * <p>The daemon must register {@link #SANDBOX_RUNTIME} as gVisor's runsc and {@link
 * #TRUSTED_RUNTIME} as runc. {@link #ensure} checks the first by running a container under it and
 * reading its kernel's log, which under gVisor starts "Starting gVisor", and fails, never skips,
 * when it does not: a test of the sandbox that ran under runc would pass for the wrong reason. A
 * daemon the user already runs works as well if it registers both names so. Thread-safe.
 */
public final class LocalDocker {

  /** busybox-static's applets and nothing else. */
  public static final String BUSYBOX = "knotless-test/busybox:1";

  /** The busybox image with git from Debian's packages. */
  public static final String GIT = "knotless-test/git:1";

  /** The runtime name the harness's daemon registers for gVisor's runsc, for others' code. */
  public static final String SANDBOX_RUNTIME = "knotless-sandbox";

  /** The runtime name it registers for runc, for the code of owners the runner trusts. */
  public static final String TRUSTED_RUNTIME = "knotless-trusted";

  /** What gVisor's kernel log starts with; runc's containers may not read the host's at all. */
  public static final String GVISOR_BANNER = "Starting gVisor";

  /** What to tell someone whose daemon lacks the runtimes, or registers the wrong one. */
  private static final String HOW =
      ": stop it and let testing/docker/dockerd.sh start one (as root; it installs runsc), or"
          + " register both names in its daemon.json, \"runtimes\": {\""
          + SANDBOX_RUNTIME
          + "\": {\"path\": \"/usr/bin/runsc\", \"runtimeArgs\": [\"--network=host\"]}, \""
          + TRUSTED_RUNTIME
          + "\": {\"path\": \"runc\"}}, and restart it";

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
    ensureImages();
    String runtimes = run("docker", "info", "--format", "{{json .Runtimes}}");
    for (String name : List.of(SANDBOX_RUNTIME, TRUSTED_RUNTIME)) {
      if (!runtimes.contains("\"" + name + "\"")) {
        throw new IllegalStateException(
            "the docker daemon that answers has no runtime " + name + HOW);
      }
    }
    String kernel = kernelLog(SANDBOX_RUNTIME);
    if (!kernel.contains(GVISOR_BANNER)) {
      throw new IllegalStateException(
          "the docker daemon's runtime "
              + SANDBOX_RUNTIME
              + " is not gVisor: a container under it has no \""
              + GVISOR_BANNER
              + "\" in its dmesg (it printed: "
              + kernel.strip().lines().findFirst().orElse("nothing")
              + ")"
              + HOW);
    }
    ready = true;
  }

  /**
   * Makes sure a daemon answers and the images are there, whatever runtimes it registers: what a
   * tour needs beside a daemon the user already runs.
   *
   * @throws IllegalStateException naming the script that failed and what it printed
   */
  public static void ensureImages() {
    Path root = PdsLauncher.repoRoot();
    run(root.resolve("testing/docker/dockerd.sh").toString(), "start");
    run(root.resolve("testing/docker/images.sh").toString());
  }

  /** The runtime the daemon that answers gives a container that names none ({@code runc}, say). */
  public static String defaultRuntime() {
    return run("docker", "info", "--format", "{{.DefaultRuntime}}").strip();
  }

  /**
   * A runtime of the daemon that answers whose program is gVisor's runsc: {@link #SANDBOX_RUNTIME}
   * when it is one, else the first by name. Empty when there is none, or no daemon answers.
   */
  public static Optional<String> gvisorRuntime() {
    String json;
    try {
      json = run("docker", "info", "--format", "{{json .Runtimes}}");
    } catch (IllegalStateException noDaemon) {
      return Optional.empty();
    }
    return gvisorRuntime(json);
  }

  /** As {@link #gvisorRuntime()}, from what {@code docker info} says of the runtimes. */
  static Optional<String> gvisorRuntime(String runtimesJson) {
    TreeMap<String, String> paths = new TreeMap<>();
    try {
      new ObjectMapper()
          .readTree(runtimesJson)
          .fields()
          .forEachRemaining(e -> paths.put(e.getKey(), e.getValue().path("path").asText()));
    } catch (IOException e) {
      throw new IllegalStateException("docker info's runtimes are not JSON: " + runtimesJson, e);
    }
    paths.values().removeIf(path -> !Path.of(path).getFileName().toString().equals("runsc"));
    return paths.containsKey(SANDBOX_RUNTIME)
        ? Optional.of(SANDBOX_RUNTIME)
        : paths.keySet().stream().findFirst();
  }

  /**
   * What a run's log says of its container's runtime, for a tour to print: "runtime NAME" from the
   * docker executor's first line ({@code container ID from IMAGE, runtime NAME}), "the daemon's
   * default runtime" when that line names none, and "no container" when the log has no such line.
   */
  public static String runtimeOfRun(String log) {
    return log.lines()
        .filter(l -> l.startsWith("container "))
        .findFirst()
        .map(
            l -> {
              int at = l.indexOf(", runtime ");
              if (at < 0) {
                return "the daemon's default runtime";
              }
              String rest = l.substring(at + 2);
              int end = rest.indexOf(',');
              return end < 0 ? rest : rest.substring(0, end);
            })
        .orElse("no container");
  }

  /**
   * The kernel log a busybox container sees under {@code runtime}: gVisor's own under runsc, and
   * under runc the host's, or more often a refusal to read it ({@code dmesg} then prints why).
   */
  private static String kernelLog(String runtime) {
    return run(
        "docker",
        "run",
        "--rm",
        "--runtime",
        runtime,
        "--network",
        "none",
        BUSYBOX,
        "sh",
        "-c",
        "dmesg 2>&1 | head -20; true");
  }

  /** Runs {@code command}, returning what it printed; fails naming it and what it said. */
  static String run(String... command) {
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
