package dev.knotless.testing.distributed;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Waits for a service just launched to be ready: its management port answers ready and its own log
 * says it listens on its HTTP port. A service that stopped at start unable to bind a port it was
 * given ends the wait with {@link PortTaken}, so it can be launched again on other ports.
 * Stateless.
 */
final class ServiceReadiness {
  private static final Duration READY = Duration.ofSeconds(120);

  private ServiceReadiness() {}

  /** The service stopped at start because a port it was given was taken meanwhile. */
  static final class PortTaken extends IOException {
    PortTaken(String message) {
      super(message);
    }
  }

  /**
   * Waits up to two minutes. A ready answer alone could come from another process that took the
   * port (a check-writer once died unable to bind while another suite's service answered in its
   * place), so the log, read from {@code logStart} on, must also say it listens on {@code port}.
   *
   * @throws PortTaken when the service stopped saying it could not bind
   * @throws IOException when it exited otherwise or is not ready in time, naming its log
   */
  static void await(
      HttpClient http,
      Process process,
      String name,
      int port,
      int managementPort,
      URI ready,
      Path log,
      long logStart)
      throws IOException {
    long deadline = System.nanoTime() + READY.toNanos();
    String last = "no answer";
    String listening = "Listening on: http://127.0.0.1:" + port;
    while (System.nanoTime() < deadline) {
      String output = logSince(log, logStart);
      if (!process.isAlive()) {
        if (output.contains("Unable to start") && output.contains("127.0.0.1:")) {
          throw new PortTaken(name + " could not bind port " + port + " or " + managementPort);
        }
        throw new IOException(name + " exited with " + process.exitValue() + "; see " + log);
      }
      // The all-in-one's own small HTTP server logs no such line.
      if (!name.startsWith("all-in-one") && !output.contains(listening)) {
        last = "its log does not yet say it listens on " + port;
        sleep(250);
        continue;
      }
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
        last = r.statusCode() + " " + r.body();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
      sleep(250);
    }
    throw new IOException(name + " not ready after " + READY + ": " + last + "; see " + log);
  }

  private static String logSince(Path log, long start) throws IOException {
    if (!Files.exists(log)) {
      return "";
    }
    try (var in = Files.newInputStream(log)) {
      in.skipNBytes(Math.min(start, Files.size(log)));
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
