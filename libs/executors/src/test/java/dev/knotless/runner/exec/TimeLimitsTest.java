package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.TimeLimits.StepLimit;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TimeLimitsTest {

  private static Duration s(long seconds) {
    return Duration.ofSeconds(seconds);
  }

  @Test
  void stepWithNoTimeoutOfItsOwnGetsTheStepTimeout() {
    assertEquals(
        new StepLimit(s(1800), false), TimeLimits.defaults().limitFor(Duration.ZERO, s(0)));
  }

  @Test
  void stepsOwnTimeoutCanOnlyShortenTheStepTimeout() {
    TimeLimits limits = TimeLimits.defaults();
    assertEquals(new StepLimit(s(60), false), limits.limitFor(s(60), s(0)));
    assertEquals(new StepLimit(s(1800), false), limits.limitFor(s(7200), s(0)));
  }

  @Test
  void runAskedForByNameMayExceedTheStepTimeoutWithItsOwn() {
    TimeLimits limits = TimeLimits.defaults().forRunAskedByName();
    assertEquals(new StepLimit(s(7200), false), limits.limitFor(s(7200), s(0)));
    assertEquals(new StepLimit(s(1800), false), limits.limitFor(Duration.ZERO, s(0)));
  }

  @Test
  void whatIsLeftOfTheRunsTimeBindsWhenItIsShorter() {
    TimeLimits limits = TimeLimits.defaults().withRunTimeout(s(600));
    assertEquals(new StepLimit(s(60), false), limits.limitFor(s(60), s(500)));
    assertEquals(new StepLimit(s(100), true), limits.limitFor(Duration.ZERO, s(500)));
    assertEquals(new StepLimit(s(100), true), limits.limitFor(s(100), s(500)));
  }

  @Test
  void stepGetsNoTimeOnceTheRunsTimeIsUp() {
    TimeLimits limits = TimeLimits.defaults().withRunTimeout(s(600));
    assertEquals(new StepLimit(Duration.ZERO, true), limits.limitFor(Duration.ZERO, s(601)));
  }

  @Test
  void runAskedForByNameIsNotHeldToTheRunTimeout() {
    TimeLimits limits = TimeLimits.defaults().withRunTimeout(s(10)).forRunAskedByName();
    assertEquals(new StepLimit(s(1800), false), limits.limitFor(Duration.ZERO, s(500)));
  }

  @Test
  void badLimitsAreRefusedByName() {
    IllegalArgumentException zero =
        assertThrows(
            IllegalArgumentException.class,
            () -> new TimeLimits(Duration.ZERO, Duration.ZERO, false));
    assertTrue(zero.getMessage().contains("--step-timeout"), zero.getMessage());
    IllegalArgumentException negative =
        assertThrows(
            IllegalArgumentException.class, () -> TimeLimits.defaults().withRunTimeout(s(-1)));
    assertTrue(negative.getMessage().contains("--run-timeout"), negative.getMessage());
  }
}
