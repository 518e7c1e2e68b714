package dev.knotless.storage;

import java.io.PrintStream;

/**
 * A timed trace of one git operation, on stderr, when {@code KNOTLESS_TRACE} is set (to anything
 * but empty, {@code 0} or {@code false}): each step as {@code knotless trace: <at> ms <step> <took>
 * ms}, where {@code at} counts from the JVM's start (its own start included) and {@code took} is
 * the step's own duration. Off by default; costs a field read when off. Thread-safe.
 */
public final class Trace {
  private static final boolean ON = enabled(System.getenv("KNOTLESS_TRACE"));
  private static final long START_MILLIS = ON ? processStart() : 0;
  private static final PrintStream ERR = System.err;

  private Trace() {}

  static boolean enabled(String value) {
    return value != null
        && !value.isBlank()
        && !value.strip().equals("0")
        && !value.strip().equalsIgnoreCase("false");
  }

  /** Whether tracing is on. */
  public static boolean on() {
    return ON;
  }

  /** A start for {@link #step}: now, in nanoseconds. */
  public static long start() {
    return System.nanoTime();
  }

  /** Prints one step that began at {@code startNanos} (from {@link #start()}) and ends now. */
  public static void step(String what, long startNanos) {
    if (ON) {
      long took = (System.nanoTime() - startNanos) / 1_000_000;
      ERR.println(
          "knotless trace: "
              + (System.currentTimeMillis() - START_MILLIS)
              + " ms "
              + what
              + " "
              + took
              + " ms");
    }
  }

  /** Prints a moment, with no duration. */
  public static void mark(String what) {
    if (ON) {
      ERR.println("knotless trace: " + (System.currentTimeMillis() - START_MILLIS) + " ms " + what);
    }
  }

  /**
   * When the JVM started, to the millisecond (the process's start time in {@code /proc} is only as
   * exact as the boot time it counts from, a whole second). Loading the management classes costs a
   * traced run some tens of milliseconds.
   */
  private static long processStart() {
    return java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
  }
}
