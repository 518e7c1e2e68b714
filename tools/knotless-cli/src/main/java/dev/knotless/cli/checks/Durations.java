package dev.knotless.cli.checks;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** How times and durations read in the owner tools' tables. Pure and stateless. */
public final class Durations {
  private static final DateTimeFormatter WHEN =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

  private Durations() {}

  /** An instant in UTC to the second, such as {@code 2026-11-29 10:00:03Z}; "-" for none. */
  public static String when(Instant at) {
    return at == null ? "-" : WHEN.format(at);
  }

  /**
   * How long from {@code start} to {@code end}: {@code 850ms}, {@code 42s}, {@code 3m07s}, {@code
   * 2h05m}; "-" without a start. With no end, the time so far to {@code now}, marked {@code +}.
   */
  public static String between(Instant start, Instant end, Instant now) {
    if (start == null) {
      return "-";
    }
    boolean going = end == null;
    Duration d = Duration.between(start, going ? now : end);
    if (d.isNegative()) {
      d = Duration.ZERO;
    }
    return of(d) + (going ? "+" : "");
  }

  /** A duration, in its two largest units. */
  public static String of(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    long s = d.toSeconds();
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format("%dm%02ds", s / 60, s % 60);
    }
    return String.format("%dh%02dm", s / 3600, (s % 3600) / 60);
  }
}
