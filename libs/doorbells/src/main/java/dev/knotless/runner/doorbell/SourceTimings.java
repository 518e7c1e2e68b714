package dev.knotless.runner.doorbell;

import java.time.Duration;

/**
 * The clocks of an event source's connection. Immutable and thread-safe.
 *
 * @param silence how long a connection may stay quiet before it gets a ping, and then how long it
 *     may stay quiet after the ping before it is given up and made again (60 s each)
 * @param firstBackoff the wait before connecting again after a failure (1 s); it doubles with each
 *     failure in a row
 * @param maxBackoff the cap on that wait (60 s)
 * @param connectTimeout how long one connection attempt may take (30 s)
 */
public record SourceTimings(
    Duration silence, Duration firstBackoff, Duration maxBackoff, Duration connectTimeout) {
  public SourceTimings {
    positive("silence", silence);
    positive("firstBackoff", firstBackoff);
    positive("maxBackoff", maxBackoff);
    positive("connectTimeout", connectTimeout);
    if (maxBackoff.compareTo(firstBackoff) < 0) {
      throw new IllegalArgumentException(
          "maxBackoff " + maxBackoff + " must not be shorter than firstBackoff " + firstBackoff);
    }
  }

  /** 60 s of silence, then a ping, then 60 s more; reconnect after 1 s doubling up to 60 s. */
  public static SourceTimings defaults() {
    return new SourceTimings(
        Duration.ofSeconds(60),
        Duration.ofSeconds(1),
        Duration.ofSeconds(60),
        Duration.ofSeconds(30));
  }

  private static void positive(String name, Duration value) {
    if (value == null || value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException(name + " must be a positive duration, got " + value);
    }
  }
}
