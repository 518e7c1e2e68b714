package dev.knotless.storage;

import java.io.PrintStream;
import java.util.function.Supplier;

/**
 * A timed trace of one git operation, on stderr, when {@code KNOTLESS_TRACE} is set (to anything
 * but empty, {@code 0} or {@code false}): each step as {@code knotless trace: <at> ms <step> <took>
 * ms}, where {@code at} counts from the JVM's start (its own start included) and {@code took} is
 * the step's own duration. Off by default; costs a field read when off. Thread-safe.
 *
 * <p>A process that serves many operations (the resident helper) traces each one that asks for it
 * to that operation's own stderr: {@link #during} sets the operation's {@link Sink} on the calling
 * thread, and {@link Threads#async} carries it to the work the operation hands to other threads.
 * There {@code at} counts from the operation's start.
 */
public final class Trace {
  private static final boolean ON = asked(System.getenv());
  private static final long START_MILLIS = ON ? processStart() : 0;
  private static final PrintStream ERR = System.err;
  private static final ThreadLocal<Sink> SINK = new ThreadLocal<>();

  /** Where one operation's trace goes, and when the operation started (epoch milliseconds). */
  public record Sink(PrintStream err, long startMillis) {}

  private Trace() {}

  static boolean enabled(String value) {
    return value != null
        && !value.isBlank()
        && !value.strip().equals("0")
        && !value.strip().equalsIgnoreCase("false");
  }

  /** Whether {@code env} asks for a trace. */
  public static boolean asked(java.util.Map<String, String> env) {
    return enabled(env.get("KNOTLESS_TRACE"));
  }

  /** Whether tracing is on, for this process or for the operation this thread works for. */
  public static boolean on() {
    return ON || SINK.get() != null;
  }

  /** The operation's sink on this thread, or null: for handing on to another thread. */
  public static Sink current() {
    return SINK.get();
  }

  /** Runs {@code work} on this thread with {@code sink} (null: none) as its trace. */
  public static <T> T during(Sink sink, Supplier<T> work) {
    Sink before = SINK.get();
    if (sink == null) {
      SINK.remove();
    } else {
      SINK.set(sink);
    }
    try {
      return work.get();
    } finally {
      if (before == null) {
        SINK.remove();
      } else {
        SINK.set(before);
      }
    }
  }

  /** A start for {@link #step}: now, in nanoseconds. */
  public static long start() {
    return System.nanoTime();
  }

  /** Prints one step that began at {@code startNanos} (from {@link #start()}) and ends now. */
  public static void step(String what, long startNanos) {
    if (on()) {
      long took = (System.nanoTime() - startNanos) / 1_000_000;
      print(what + " " + took + " ms");
    }
  }

  /** Prints a moment, with no duration. */
  public static void mark(String what) {
    if (on()) {
      print(what);
    }
  }

  private static void print(String what) {
    Sink sink = SINK.get();
    PrintStream err = sink != null ? sink.err() : ERR;
    long from = sink != null ? sink.startMillis() : START_MILLIS;
    err.println("knotless trace: " + (System.currentTimeMillis() - from) + " ms " + what);
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
