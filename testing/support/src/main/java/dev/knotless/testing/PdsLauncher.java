package dev.knotless.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Process handling behind {@link PdsInstance}: finding the script, the ready line, stopping. */
final class PdsLauncher {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final int READY_TIMEOUT_SECONDS = PdsInstance.READY_TIMEOUT_SECONDS;
  private static final int STOP_GRACE_SECONDS = PdsInstance.STOP_GRACE_SECONDS;

  private PdsLauncher() {}

  static java.io.File nullFile() {
    return new java.io.File("/dev/null");
  }

  static JsonNode awaitReady(Process process, Path stderrLog) {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> firstLine =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return out.readLine();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    String line;
    try {
      line = firstLine.get(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      kill(process.toHandle());
      throw new IllegalStateException(
          "the test PDS was not ready within "
              + READY_TIMEOUT_SECONDS
              + " s; its error output ends with:\n"
              + tail(stderrLog));
    } catch (ExecutionException e) {
      kill(process.toHandle());
      throw new IllegalStateException("could not read the test PDS's ready line", e.getCause());
    } catch (InterruptedException e) {
      kill(process.toHandle());
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the test PDS started", e);
    }
    if (line == null) {
      kill(process.toHandle());
      throw new IllegalStateException(
          "the test PDS exited before it was ready; its error output ends with:\n"
              + tail(stderrLog));
    }
    JsonNode ready;
    try {
      ready = JSON.readTree(line);
    } catch (IOException e) {
      kill(process.toHandle());
      throw new IllegalStateException("the test PDS's first line is not JSON: " + line, e);
    }
    if (!ready.path("ready").asBoolean()) {
      kill(process.toHandle());
      throw new IllegalStateException(
          "the test PDS failed to start: " + ready.path("error").asText(line));
    }
    // Nothing else is expected on stdout, but a full pipe would block the server: drain it.
    Thread drain =
        new Thread(
            () -> {
              try {
                while (out.readLine() != null) {
                  // discard
                }
              } catch (IOException e) {
                // The server is gone; nothing left to drain.
              }
            },
            "pds-" + process.pid() + "-stdout");
    drain.setDaemon(true);
    drain.start();
    return ready;
  }

  /**
   * The repository root: the system property {@code knotless.repo.root} (which the build sets for
   * tests), else the nearest directory above the working directory that holds {@code
   * testing/pds/start-pds.sh}.
   */
  static Path repoRoot() {
    String property = System.getProperty("knotless.repo.root");
    if (property != null && !property.isBlank()) {
      Path root = Path.of(property).toAbsolutePath();
      if (Files.isRegularFile(root.resolve("testing/pds/start-pds.sh"))) {
        return root;
      }
      throw new IllegalStateException(
          "knotless.repo.root=" + property + " holds no testing/pds/start-pds.sh");
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("testing/pds/start-pds.sh"))) {
        return dir;
      }
    }
    throw new IllegalStateException(
        "no testing/pds/start-pds.sh above "
            + Path.of("").toAbsolutePath()
            + "; set -Dknotless.repo.root=<repository root>");
  }

  static void kill(ProcessHandle handle) {
    if (!handle.isAlive()) {
      return;
    }
    handle.destroy();
    try {
      handle.onExit().get(STOP_GRACE_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      handle.destroyForcibly();
      handle.onExit().orTimeout(STOP_GRACE_SECONDS, TimeUnit.SECONDS).join();
    } catch (ExecutionException e) {
      throw new IllegalStateException("waiting for process " + handle.pid() + " failed", e);
    } catch (InterruptedException e) {
      handle.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(could not read " + log + ": " + e.getMessage() + ")";
    }
  }
}
