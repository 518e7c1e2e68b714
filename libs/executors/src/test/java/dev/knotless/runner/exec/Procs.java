package dev.knotless.runner.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Reads /proc, and polls with a deadline, for the executor's tests. */
final class Procs {

  private Procs() {}

  /** True if the process is gone, or dead and waiting to be reaped (a zombie). */
  static boolean dead(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // The state follows the command name, which is in parentheses and may hold spaces.
      String afterName = stat.substring(stat.lastIndexOf(')') + 2);
      return afterName.charAt(0) == 'Z' || afterName.charAt(0) == 'X';
    } catch (NoSuchFileException gone) {
      return true;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The process group of a live process. */
  static long processGroup(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[2]);
  }

  /** Every live process's argument list, each joined with spaces. */
  static List<String> allCommandLines() throws IOException {
    List<String> lines = new ArrayList<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path p : procs) {
        try {
          byte[] raw = Files.readAllBytes(p.resolve("cmdline"));
          lines.add(new String(raw, StandardCharsets.UTF_8).replace('\0', ' '));
        } catch (NoSuchFileException | java.nio.file.AccessDeniedException gone) {
          // It ended while we looked, or is not ours to read: nothing to check.
        } catch (IOException e) {
          if (!Files.exists(p)) {
            continue;
          }
          throw e;
        }
      }
    }
    return lines;
  }

  /** A process's environment, as NAME=value strings. */
  static List<String> environment(long pid) throws IOException {
    byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
    return List.of(new String(raw, StandardCharsets.UTF_8).split("\0"));
  }

  /** Polls {@code condition} every 20 ms until it holds or {@code within} passes. */
  static boolean await(Duration within, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return true;
      }
      Thread.sleep(20);
    }
    return condition.getAsBoolean();
  }

  /** Reads a PID a step wrote to {@code file}, waiting up to 10 s for it to appear. */
  static long awaitPid(Path file) throws InterruptedException, IOException {
    if (!await(Duration.ofSeconds(10), () -> hasLine(file))) {
      throw new AssertionError("the step never wrote " + file);
    }
    return Long.parseLong(Files.readString(file).strip());
  }

  private static boolean hasLine(Path file) {
    try {
      return Files.exists(file) && Files.readString(file).endsWith("\n");
    } catch (IOException e) {
      return false;
    }
  }
}
