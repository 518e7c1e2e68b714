package dev.knotless.bench;

import java.util.Arrays;

/** How the benchmarks print times and method names. */
final class Figures {
  private Figures() {}

  static String median(long[] nanos) {
    return ms(middle(nanos));
  }

  static String max(long[] nanos) {
    return ms(largest(nanos));
  }

  /** The median (the upper one of an even count). */
  static long middle(long[] values) {
    long[] s = values.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  static long largest(long[] values) {
    return Arrays.stream(values).max().orElse(0);
  }

  static long smallest(long[] values) {
    return Arrays.stream(values).min().orElse(0);
  }

  static String ms(long nanos) {
    return (nanos / 1_000_000) + " ms";
  }

  static String seconds(long nanos) {
    return String.format("%.1f s", nanos / 1e9);
  }

  /** Per second, for {@code count} things done in {@code nanos}. */
  static String rate(int count, long nanos) {
    return String.format("%.1f", count / (nanos / 1e9));
  }

  static String shortName(String method) {
    return method.replace("com.atproto.", "");
  }

  /** The machine's load average as /proc/loadavg gives it, and its CPUs, for a bench's footer. */
  static String loadAverage() {
    try {
      String[] f =
          java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
      return f[0]
          + " "
          + f[1]
          + " "
          + f[2]
          + " (1, 5, 15 min) on "
          + Runtime.getRuntime().availableProcessors()
          + " CPUs";
    } catch (java.io.IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
