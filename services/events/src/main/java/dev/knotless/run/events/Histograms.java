package dev.knotless.run.events;

import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * The buckets every {@code _seconds} histogram of ours has, so that one PromQL {@code
 * histogram_quantile} reads them all alike: from 10 ms (a PDS call) to an hour (a long run's queue
 * wait or duration). Fixed buckets rather than Micrometer's percentile histogram keep each series'
 * bucket count at 16.
 */
public final class Histograms {
  private static final Duration[] BUCKETS = {
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofMinutes(1),
    Duration.ofMinutes(2),
    Duration.ofMinutes(5),
    Duration.ofMinutes(15),
    Duration.ofHours(1),
  };

  private Histograms() {}

  /** A timer builder named {@code name}, exported as {@code <name>_seconds} with buckets. */
  public static Timer.Builder seconds(String name, String description) {
    return Timer.builder(name)
        .description(description)
        .serviceLevelObjectives(BUCKETS)
        .minimumExpectedValue(BUCKETS[0])
        .maximumExpectedValue(BUCKETS[BUCKETS.length - 1]);
  }
}
