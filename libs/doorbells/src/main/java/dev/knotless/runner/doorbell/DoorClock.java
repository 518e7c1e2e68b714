package dev.knotless.runner.doorbell;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The time the doorbell code lives by: a monotonic clock and one-shot delayed tasks. Production
 * code uses {@link #of(ScheduledExecutorService)}; tests use a fake they advance by hand, so rules
 * measured in minutes are tested without waiting.
 *
 * <p>Implementations must be thread-safe.
 */
public interface DoorClock {
  /** Runs {@code task} once after {@code delay}, on the clock's own thread. */
  Cancellable schedule(Duration delay, Runnable task);

  /** A monotonic time in nanoseconds, as {@link System#nanoTime()}: only differences mean much. */
  long nanoTime();

  /**
   * The wall clock in epoch milliseconds, as {@link System#currentTimeMillis()}: compared only with
   * when a ring was made, to know whether a pass began after it.
   */
  default long wallMillis() {
    return System.currentTimeMillis();
  }

  /** A scheduled task that can still be called off. */
  @FunctionalInterface
  interface Cancellable {
    /** Calls the task off if it has not started; harmless if it has run. */
    void cancel();
  }

  /** The real clock, with tasks run by {@code executor}. */
  static DoorClock of(ScheduledExecutorService executor) {
    return new DoorClock() {
      @Override
      public Cancellable schedule(Duration delay, Runnable task) {
        ScheduledFuture<?> future =
            executor.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
      }

      @Override
      public long nanoTime() {
        return System.nanoTime();
      }
    };
  }
}
