package dev.knotless.runner.filing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WriteRetryTest {

  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  @Test
  void serverErrorsAreTriedThreeMoreTimesAfterHalfOneAndTwoSeconds() {
    XrpcException e = new XrpcException("m", 502, null, null, null);
    assertEquals(Optional.of(Duration.ofMillis(500)), WriteRetry.next(e, 0, Duration.ZERO, NOW));
    assertEquals(Optional.of(Duration.ofSeconds(1)), WriteRetry.next(e, 1, Duration.ZERO, NOW));
    assertEquals(Optional.of(Duration.ofSeconds(2)), WriteRetry.next(e, 2, Duration.ZERO, NOW));
    assertTrue(WriteRetry.next(e, 3, Duration.ZERO, NOW).isEmpty());
  }

  @Test
  void noStatusAndRateLimitsWithoutAResetAreRetriedLikeServerErrors() {
    assertEquals(
        Optional.of(Duration.ofMillis(500)),
        WriteRetry.next(
            XrpcException.noStatus("m", new IOException("reset")), 0, Duration.ZERO, NOW));
    assertEquals(
        Optional.of(Duration.ofMillis(500)),
        WriteRetry.next(new XrpcException("m", 429, null, null, null), 0, Duration.ZERO, NOW));
  }

  @Test
  void aRateLimitWithAResetIsWaitedOutUpToTenMinutesInAll() {
    XrpcException limited =
        new XrpcException("m", 429, "RateLimitExceeded", null, NOW.plusSeconds(90));
    Duration wait = WriteRetry.next(limited, 3, Duration.ZERO, NOW).orElseThrow();
    assertTrue(wait.toSeconds() >= 90 && wait.toSeconds() < 91, wait.toString());
    assertTrue(WriteRetry.next(limited, 0, Duration.ofMinutes(9), NOW).isEmpty());
    XrpcException later = new XrpcException("m", 429, null, null, NOW.plusSeconds(700));
    assertTrue(WriteRetry.next(later, 0, Duration.ZERO, NOW).isEmpty());
  }

  @Test
  void refusalsThatAreNotTransientAreNotRetried() {
    assertTrue(
        WriteRetry.next(
                new XrpcException("m", 400, "InvalidRequest", null, null), 0, Duration.ZERO, NOW)
            .isEmpty());
    assertTrue(
        WriteRetry.next(
                new XrpcException("m", 401, "AuthMissing", null, null), 0, Duration.ZERO, NOW)
            .isEmpty());
  }
}
