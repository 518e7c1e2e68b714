package dev.knotless.runner.filing;

import dev.knotless.atproto.XrpcException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * How long to wait before trying a failed check write again, or that it should be given up.
 *
 * <p>A write that fails with a 5xx, a 429 or no status is tried again three times, after 0.5, 1 and
 * 2 seconds. A 429 that names when its limit lets writes in ({@code RateLimit-Reset}) is waited out
 * until then instead, for up to ten minutes in all for the one write, since giving up would leave a
 * check that never ends. Pure and thread-safe.
 */
public final class WriteRetry {

  /** The pauses before the second, third and fourth tries. */
  public static final List<Duration> PAUSES =
      List.of(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2));

  /** The most one write waits on rate limits in all. */
  public static final Duration RATE_LIMIT_BUDGET = Duration.ofMinutes(10);

  private WriteRetry() {}

  /**
   * The pause before trying again, or empty to give up.
   *
   * @param failure what the last try got
   * @param retriesSoFar how many plain retries (not rate-limit waits) were made already
   * @param waitedOnLimits how long this write has waited on rate limits so far
   * @param now the current time
   */
  public static Optional<Duration> next(
      XrpcException failure, int retriesSoFar, Duration waitedOnLimits, Instant now) {
    if (!failure.retryable()) {
      return Optional.empty();
    }
    Optional<Instant> reset = failure.rateLimitReset();
    if (failure.status() == 429 && reset.isPresent()) {
      Duration wait = Duration.between(now, reset.get());
      if (wait.isNegative()) {
        wait = Duration.ZERO;
      }
      // A moment past the reset, so the first try after it is not refused again.
      wait = wait.plusMillis(250);
      if (waitedOnLimits.plus(wait).compareTo(RATE_LIMIT_BUDGET) > 0) {
        return Optional.empty();
      }
      return Optional.of(wait);
    }
    if (retriesSoFar >= PAUSES.size()) {
      return Optional.empty();
    }
    return Optional.of(PAUSES.get(retriesSoFar));
  }
}
