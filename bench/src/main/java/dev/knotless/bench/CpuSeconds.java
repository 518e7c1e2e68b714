package dev.knotless.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time (user + system, from {@code /proc/<pid>/stat}) of this process and every process it
 * started, by what each is: where the seconds of a bench on a shared machine went.
 */
final class CpuSeconds {
  /** Clock ticks a second, as {@code /proc} counts them on Linux. */
  private static final double TICKS = 100.0;

  private CpuSeconds() {}

  /** CPU-seconds so far of this process and its descendants, by label. */
  static Map<String, Double> now() {
    Map<String, Double> by = new TreeMap<>();
    add(by, ProcessHandle.current());
    ProcessHandle.current().descendants().forEach(p -> add(by, p));
    return by;
  }

  /**
   * As {@link #now()}, with the PostgreSQL server listening on {@code pgPort} as {@code postgres}:
   * its postmaster and live backends, which {@code pg_ctl} starts apart from this process.
   */
  static Map<String, Double> now(int pgPort) {
    Map<String, Double> by = now();
    String port = " -p " + pgPort + " ";
    ProcessHandle.allProcesses()
        .filter(
            p ->
                p.info()
                    .commandLine()
                    .map(c -> c.contains("/bin/postgres ") && (c + " ").contains(port))
                    .orElse(false))
        .forEach(
            postmaster -> {
              add(by, postmaster);
              postmaster.descendants().forEach(p -> add(by, p));
            });
    return by;
  }

  /** {@code to} less {@code from}, label by label, as "label 12.3" pairs. */
  static String between(Map<String, Double> from, Map<String, Double> to) {
    StringBuilder out = new StringBuilder();
    double total = 0;
    for (Map.Entry<String, Double> e : to.entrySet()) {
      double s = e.getValue() - from.getOrDefault(e.getKey(), 0.0);
      if (s >= 0.05) {
        out.append(out.length() == 0 ? "" : ", ")
            .append(e.getKey())
            .append(' ')
            .append(String.format("%.1f", s));
        total += s;
      }
    }
    return String.format("%.1f CPU-s: ", total) + out;
  }

  private static void add(Map<String, Double> by, ProcessHandle p) {
    try {
      String stat = Files.readString(Path.of("/proc/" + p.pid() + "/stat"));
      // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      double s = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS;
      by.merge(label(p), s, Double::sum);
    } catch (IOException | RuntimeException e) {
      // Gone meanwhile: it counts no more.
    }
  }

  private static String label(ProcessHandle p) {
    if (p.pid() == ProcessHandle.current().pid()) {
      return "bench";
    }
    String cmd = p.info().commandLine().orElse(p.info().command().orElse("?"));
    for (String service : new String[] {"reconciler", "ingester", "scheduler", "check-writer"}) {
      if (cmd.contains("services/" + service + "/")) {
        return service + "-" + p.pid();
      }
    }
    if (cmd.contains("Kafka")) {
      return "kafka";
    }
    if (cmd.contains("postgres")) {
      return "postgres";
    }
    if (cmd.contains("node")) {
      return "pds";
    }
    return Path.of(p.info().command().orElse("other")).getFileName().toString();
  }
}
