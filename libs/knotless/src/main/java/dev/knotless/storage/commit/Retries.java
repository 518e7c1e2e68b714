package dev.knotless.storage.commit;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * The pause before a commit replays after losing a race: random, under 20 ms × 2^attempt and at
 * most 1.28 s, so losers do not come back together. Pure given the random source.
 */
public final class Retries {
  /** Replays after the first try, by default. */
  public static final int DEFAULT_RETRIES = 5;

  private static final long BASE_MILLIS = 20;
  private static final long MAX_MILLIS = 1280;

  private Retries() {}

  /** The pause before replay number {@code attempt} (1 for the first replay). */
  public static Duration pause(int attempt, RandomGenerator random) {
    long bound = Math.min(MAX_MILLIS, BASE_MILLIS << Math.min(attempt, 20));
    return Duration.ofMillis(random.nextLong(bound));
  }
}
