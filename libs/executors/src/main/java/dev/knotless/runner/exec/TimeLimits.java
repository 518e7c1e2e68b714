package dev.knotless.runner.exec;

import java.time.Duration;
import java.util.Objects;

/**
 * The time limits of one run: {@code --step-timeout}, {@code --run-timeout} and whether the run was
 * asked for by name. {@link #limitFor} is the one place that decides how long a step may take.
 *
 * <p>Immutable and thread-safe. Durations are whole seconds or finer; a limit is never negative.
 *
 * @param step {@code --step-timeout}: each step's limit (1800 s by default)
 * @param run {@code --run-timeout}: the limit of all the run's steps together, or {@link
 *     Duration#ZERO} for none (the default)
 * @param askedByName true for a run asked for by name: a step's own timeout may then exceed {@code
 *     step}, and {@code run} does not hold it
 */
public record TimeLimits(Duration step, Duration run, boolean askedByName) {

  /** {@code --step-timeout}'s default. */
  public static final Duration DEFAULT_STEP = Duration.ofSeconds(1800);

  /** Checks that the step limit is positive and the run limit not negative. */
  public TimeLimits {
    Objects.requireNonNull(step, "step timeout");
    Objects.requireNonNull(run, "run timeout");
    if (step.isZero() || step.isNegative()) {
      throw new IllegalArgumentException("--step-timeout must be positive, got " + step);
    }
    if (run.isNegative()) {
      throw new IllegalArgumentException("--run-timeout must not be negative, got " + run);
    }
  }

  /** The defaults: 1800 s a step, no run limit, not asked for by name. */
  public static TimeLimits defaults() {
    return new TimeLimits(DEFAULT_STEP, Duration.ZERO, false);
  }

  /** These limits with {@code --run-timeout} set. */
  public TimeLimits withRunTimeout(Duration runTimeout) {
    return new TimeLimits(step, runTimeout, askedByName);
  }

  /** These limits for a run asked for by name. */
  public TimeLimits forRunAskedByName() {
    return new TimeLimits(step, run, true);
  }

  /** True if the run's steps together are limited. */
  public boolean runLimited() {
    return !run.isZero() && !askedByName;
  }

  /**
   * How long a step may take.
   *
   * @param stepOwn the step's own timeout, {@link Duration#ZERO} for none
   * @param runElapsed how long the run's steps have taken so far
   * @return the limit, and whether the run's remaining time is what binds it; a limit of zero means
   *     the run's time is already up and the step must not start
   */
  public StepLimit limitFor(Duration stepOwn, Duration runElapsed) {
    Duration limit = step;
    if (!stepOwn.isZero() && (askedByName || stepOwn.compareTo(step) < 0)) {
      limit = stepOwn;
    }
    if (runLimited()) {
      Duration left = run.minus(runElapsed);
      if (left.isNegative()) {
        left = Duration.ZERO;
      }
      if (left.compareTo(limit) <= 0) {
        return new StepLimit(left, true);
      }
    }
    return new StepLimit(limit, false);
  }

  /**
   * A step's limit.
   *
   * @param limit how long the step may take; zero when the run's time is up
   * @param runBound true if it is what is left of the run's time, so that a kill at the limit is
   *     the run's time being up, not the step's
   */
  public record StepLimit(Duration limit, boolean runBound) {}
}
