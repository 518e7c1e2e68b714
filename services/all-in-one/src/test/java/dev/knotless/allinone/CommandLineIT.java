package dev.knotless.allinone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code knotless-run}'s command line is answered before the service starts: {@code
 * --help}, {@code --version} and a usage error work while another process holds the metrics port,
 * which a started service would fail to bind.
 */
class CommandLineIT {

  record Ran(int exit, String output) {}

  private static Ran knotlessRun(int metricsPort, Path dir, String... args) throws Exception {
    Path root = Path.of(System.getProperty("knotless.repo.root", "../..")).toAbsolutePath();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-jar");
    cmd.add(root.resolve("services/all-in-one/target/quarkus-app/quarkus-run.jar").toString());
    cmd.addAll(List.of(args));
    Path log = dir.resolve("run-" + System.nanoTime() + ".log");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    pb.environment().put("KNOTLESS_METRICS_PORT", Integer.toString(metricsPort));
    pb.environment().put("KNOTLESS_CACHE_DIR", dir.resolve("cache").toString());
    pb.environment().put("HOME", dir.toString());
    Process p = pb.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("knotless-run " + String.join(" ", args) + " did not exit");
    }
    return new Ran(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  @Test
  void helpVersionAndAUsageErrorAnswerWhileAnotherProcessHoldsTheMetricsPort(@TempDir Path dir)
      throws Exception {
    try (ServerSocket held = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int port = held.getLocalPort();

      Ran help = knotlessRun(port, dir, "--help");
      assertEquals(0, help.exit(), help.output());
      assertTrue(help.output().startsWith("usage: knotless-run"), help.output());
      assertTrue(help.output().contains("--version"), help.output());

      Ran version = knotlessRun(port, dir, "--version");
      assertEquals(0, version.exit(), version.output());
      assertTrue(
          version.output().matches("knotless-run \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R"),
          version.output());

      Ran bad = knotlessRun(port, dir, "--jobs=many", "alice.test/site");
      assertEquals(2, bad.exit(), bad.output());
      assertEquals("knotless-run: --jobs many: expected a whole number, 0 or more\n", bad.output());

      Ran unknown = knotlessRun(port, dir, "--frobnicate", "alice.test/site");
      assertEquals(2, unknown.exit(), unknown.output());
      assertTrue(unknown.output().contains("unknown flag --frobnicate"), unknown.output());
      for (Ran r : List.of(help, version, bad, unknown)) {
        assertFalse(r.output().contains("in use"), "nothing tried the port: " + r.output());
      }
    }
  }
}
