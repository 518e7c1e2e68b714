package dev.knotless.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A process's memory, from {@code /proc} and, for its heap, from {@code jcmd}. */
final class Memory {
  private Memory() {}

  /** Resident memory now, in bytes ({@code VmRSS}). */
  static long rss(long pid) throws IOException {
    return status(pid, "VmRSS:");
  }

  /** The most resident memory it has had, in bytes ({@code VmHWM}). */
  static long peak(long pid) throws IOException {
    return status(pid, "VmHWM:");
  }

  private static long status(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(field)) {
        String[] parts = line.substring(field.length()).trim().split("\\s+");
        return Long.parseLong(parts[0]) * 1024;
      }
    }
    throw new IOException("no " + field + " in /proc/" + pid + "/status");
  }

  static String mib(long bytes) {
    return String.format("%.0f MiB", bytes / 1048576.0);
  }

  /**
   * The JVM's heap in use and committed, as {@code jcmd <pid> GC.heap_info} says; "unknown" when
   * jcmd cannot say (another user's process, no JDK tools).
   */
  static String heap(long pid) {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    try {
      Process p =
          new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.heap_info")
              .redirectErrorStream(true)
              .start();
      List<String> lines = new String(p.getInputStream().readAllBytes()).lines().toList();
      p.waitFor();
      long committed = 0;
      long inUse = 0;
      for (String line : lines) {
        // "total <committed>K, used <used>K": one line for G1's heap, one a generation for Serial.
        int total = line.indexOf("total ");
        int used = line.indexOf("used ");
        if (total >= 0 && used > total) {
          committed += kib(line.substring(total + 6));
          inUse += kib(line.substring(used + 5));
        }
      }
      return committed == 0
          ? "unknown"
          : mib(inUse * 1024) + " used of " + mib(committed * 1024) + " committed";
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static long kib(String from) {
    int k = from.indexOf('K');
    return Long.parseLong(from.substring(0, k).trim());
  }
}
