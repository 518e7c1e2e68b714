package dev.knotless.runner.doorbell;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * A clock that moves only when the test says, and an executor that runs tasks only when the test
 * says: time-based rules are tested with no real waiting. Not thread-safe beyond its own monitor;
 * meant for single-threaded tests.
 */
final class FakeClock implements DoorClock, Executor {
  private final List<Timed> timers = new ArrayList<>();
  private final List<Runnable> ready = new ArrayList<>();
  private long now;
  private long sequence;

  private record Timed(long at, long sequence, Runnable task, boolean[] cancelled) {}

  @Override
  public synchronized Cancellable schedule(Duration delay, Runnable task) {
    boolean[] cancelled = {false};
    timers.add(new Timed(now + delay.toNanos(), sequence++, task, cancelled));
    return () -> {
      synchronized (this) {
        cancelled[0] = true;
      }
    };
  }

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  /** The wall clock: the fake time, from an arbitrary epoch millisecond. */
  @Override
  public synchronized long wallMillis() {
    return 1_700_000_000_000L + now / 1_000_000;
  }

  @Override
  public synchronized void execute(Runnable command) {
    ready.add(command);
  }

  /** Runs every task handed to the executor, including those they hand over in turn. */
  void runReady() {
    while (true) {
      Runnable next;
      synchronized (this) {
        if (ready.isEmpty()) {
          return;
        }
        next = ready.remove(0);
      }
      next.run();
    }
  }

  /** Tasks waiting on the executor. */
  synchronized int readyCount() {
    return ready.size();
  }

  /** Timers not cancelled and not yet due. */
  synchronized long pendingTimers() {
    return timers.stream().filter(t -> !t.cancelled()[0]).count();
  }

  /** The delays of the timers not cancelled and not yet due, from now, soonest first. */
  synchronized List<Duration> pendingDelays() {
    return timers.stream()
        .filter(t -> !t.cancelled()[0])
        .map(t -> Duration.ofNanos(t.at() - now))
        .sorted()
        .toList();
  }

  /** Moves time forward, firing each timer that falls due in order, then runs ready tasks. */
  void advance(Duration by) {
    long until;
    synchronized (this) {
      until = now + by.toNanos();
    }
    while (true) {
      Timed due;
      synchronized (this) {
        due =
            timers.stream()
                .filter(t -> t.at() <= until)
                .min(Comparator.comparingLong(Timed::at).thenComparingLong(Timed::sequence))
                .orElse(null);
        if (due == null) {
          now = until;
          break;
        }
        timers.remove(due);
        now = Math.max(now, due.at());
        if (due.cancelled()[0]) {
          continue;
        }
      }
      due.task().run();
      runReady();
    }
    runReady();
  }
}
