package dev.knotless.runner.doorbell;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * One door, and so one reconcile task, per watched repository.
 *
 * <ul>
 *   <li>{@link #ring}: if the repository has no pass running, one starts on the pass executor;
 *       otherwise the ring is remembered, and however many rings arrive during a pass, exactly one
 *       more pass follows it, answering all their reasons.
 *   <li>A pass that throws rings its own door again ({@link Doorbell#RETRY}) after {@link
 *       #retryDelay()}, min(sweep, 60 s). A pass that succeeds calls off a retry still waiting.
 *   <li>{@link #startSweeping()} rings every door every sweep interval ({@link Doorbell#SWEEP}).
 *   <li>{@link #ring(RepoId, Doorbell, long)}: a ring that asks only to look at everything (a
 *       connection or a sweep) and was made before the repository's latest pass began is already
 *       answered by that pass, which read the repository after it; it is dropped, so a start that
 *       rings every door from two places passes each repository once.
 * </ul>
 *
 * A ring at a door that is not open (an unwatched repository) does nothing: a frame cannot make the
 * runner look at a repository it does not watch.
 *
 * <p>Logs each ring at DEBUG and each pass's end at INFO with its duration, as {@code Pass
 * #N(reasons) did/key ended in M ms}; the MDC keys {@code repo} and {@code pass} are set while the
 * pass runs.
 *
 * <p>Thread-safe: ring from any thread. Passes of different repositories run in parallel, as the
 * executor allows; passes of one repository never overlap.
 */
public final class Doors implements DoorbellSink, AutoCloseable {
  /** The sweep interval when none is given: {@code --sweep 600}. */
  public static final Duration DEFAULT_SWEEP = Duration.ofSeconds(600);

  /** The longest a failed pass waits before its door rings again. */
  public static final Duration MAX_RETRY = Duration.ofSeconds(60);

  private static final Logger LOG = LoggerFactory.getLogger(Doors.class);

  private final PassRunner runner;
  private final Executor passes;
  private final DoorClock clock;
  private final Duration sweep;
  private final ConcurrentMap<RepoId, Door> doors = new ConcurrentHashMap<>();
  private final AtomicLong passNumbers = new AtomicLong();
  private volatile boolean closed;
  private volatile DoorClock.Cancellable nextSweep;

  /**
   * @param runner the pass itself
   * @param passes where passes run; a pool sized for how many repositories may pass at once
   * @param clock time, for retries, sweeps and durations
   * @param sweep how often {@link #startSweeping()} rings every door (positive)
   */
  public Doors(PassRunner runner, Executor passes, DoorClock clock, Duration sweep) {
    if (sweep.isZero() || sweep.isNegative()) {
      throw new IllegalArgumentException("--sweep must be a positive duration, got " + sweep);
    }
    this.runner = runner;
    this.passes = passes;
    this.clock = clock;
    this.sweep = sweep;
  }

  /** How long a failed pass waits before it rings again: min(sweep, 60 s). */
  public Duration retryDelay() {
    return sweep.compareTo(MAX_RETRY) < 0 ? sweep : MAX_RETRY;
  }

  /** The sweep interval. */
  public Duration sweep() {
    return sweep;
  }

  /**
   * Opens a repository's door, so rings reach it. Opening does not ring it; the caller rings {@link
   * Doorbell#ASKED} (or waits for a connection) if it wants a first pass now.
   *
   * @return whether the door is new
   */
  public boolean open(RepoId repo) {
    return doors.putIfAbsent(repo, new Door(repo)) == null;
  }

  /**
   * Closes a repository's door: a pass running finishes, but no further pass or retry starts.
   * Harmless if the door is not open.
   */
  public void close(RepoId repo) {
    Door door = doors.remove(repo);
    if (door != null) {
      synchronized (door) {
        door.closed = true;
        door.next.clear();
        door.cancelRetry();
      }
    }
  }

  /**
   * Drops the pass a repository is owed and has not begun, and its retry, keeping its door open:
   * the repository is another process's to pass now (its doorbell partition moved, and the new
   * owner rings it). A pass running finishes; a later ring is answered as usual.
   *
   * @return whether a pass owed (or a failed pass's retry) was dropped
   */
  public boolean forgo(RepoId repo) {
    Door door = doors.get(repo);
    if (door == null) {
      return false;
    }
    synchronized (door) {
      boolean owed = door.queued != null || !door.next.isEmpty() || door.retry != null;
      door.cancelRetry();
      door.next.clear();
      if (door.queued != null) {
        door.forgone = true;
      }
      if (owed) {
        door.dueSinceNanos = -1;
      }
      return owed;
    }
  }

  /** The open doors. */
  public Set<RepoId> doors() {
    return Set.copyOf(doors.keySet());
  }

  /** Whether a pass of this repository is running now. */
  public boolean busy(RepoId repo) {
    Door door = doors.get(repo);
    if (door == null) {
      return false;
    }
    synchronized (door) {
      return door.running;
    }
  }

  /**
   * The passes owed and not begun: how many repositories have a pass due that has not started (one
   * waiting for a pass thread, or rung again during its pass), and how long the oldest has waited.
   *
   * @param waiting repositories with a pass due and not begun
   * @param oldest how long the longest of them has waited; zero when none waits
   */
  public record Backlog(int waiting, Duration oldest) {}

  /** The passes owed and not begun now, for the doorbell lag gauges. */
  public Backlog backlog() {
    long now = clock.nanoTime();
    int waiting = 0;
    long oldest = 0;
    for (Door door : doors.values()) {
      synchronized (door) {
        if (door.dueSinceNanos >= 0) {
          waiting++;
          oldest = Math.max(oldest, now - door.dueSinceNanos);
        }
      }
    }
    return new Backlog(waiting, Duration.ofNanos(oldest));
  }

  /** Rings one door; a ring at a door that is not open is dropped (logged at DEBUG). */
  @Override
  public void ring(RepoId repo, Doorbell reason) {
    Door door = doors.get(repo);
    if (door == null || closed) {
      LOG.debug("Ring ({}) {} ignored: no door open", reason, repo);
      return;
    }
    LOG.debug("Ring ({}) {}", reason, repo);
    synchronized (door) {
      if (door.closed) {
        return;
      }
      if (door.running) {
        if (door.queued != null) {
          // Handed to the executor and not begun: that pass reads the repository after this ring,
          // so it answers it too. A start's rings from two places pass each repository once.
          door.queued.add(reason);
          if (door.forgone) {
            door.forgone = false;
            door.dueSinceNanos = clock.nanoTime();
          }
          return;
        }
        if (door.dueSinceNanos < 0) {
          door.dueSinceNanos = clock.nanoTime();
        }
        door.next.add(reason);
        return;
      }
      door.running = true;
      door.dueSinceNanos = clock.nanoTime();
      door.queued = new LinkedHashSet<>(List.of(reason));
    }
    start(door);
  }

  /**
   * Rings one door for a ring made at {@code madeAtMillis} (epoch milliseconds). A connect or sweep
   * ring made before the repository's latest pass began (running or ended) is dropped, since that
   * pass read the repository after the ring was made; any other ring is rung as {@link #ring}.
   * Callers comparing another machine's clock add their allowance for skew to {@code madeAtMillis}.
   */
  public void ring(RepoId repo, Doorbell reason, long madeAtMillis) {
    Door door = doors.get(repo);
    if (door != null && (reason instanceof Doorbell.Connect || reason instanceof Doorbell.Sweep)) {
      synchronized (door) {
        if (madeAtMillis < door.passStartedMillis) {
          LOG.debug("Ring ({}) {} answered by the pass begun after it", reason, repo);
          return;
        }
      }
    }
    ring(repo, reason);
  }

  /** Rings every open door. */
  @Override
  public void ringAll(Doorbell reason) {
    LOG.debug("Ring ({}) every door: {}", reason, doors.size());
    for (RepoId repo : doors.keySet()) {
      ring(repo, reason);
    }
  }

  /**
   * Rings every door every sweep interval from now on, the first time one interval from now.
   * Calling it again does nothing.
   */
  public synchronized void startSweeping() {
    if (nextSweep == null && !closed) {
      nextSweep = clock.schedule(sweep, this::sweepNow);
    }
  }

  private void sweepNow() {
    if (closed) {
      return;
    }
    // Scheduled before ringing, so a slow sink cannot delay the sweep after this one.
    nextSweep = clock.schedule(sweep, this::sweepNow);
    ringAll(Doorbell.SWEEP);
  }

  /** Stops sweeping and retrying; passes running finish; later rings are dropped. */
  @Override
  public void close() {
    closed = true;
    DoorClock.Cancellable sweeping = nextSweep;
    if (sweeping != null) {
      sweeping.cancel();
    }
    for (RepoId repo : doors.keySet()) {
      close(repo);
    }
  }

  private void start(Door door) {
    try {
      passes.execute(() -> passUntilQuiet(door));
    } catch (RejectedExecutionException e) {
      synchronized (door) {
        door.running = false;
        door.dueSinceNanos = -1;
        door.queued = null;
      }
      LOG.warn(
          "Pass of {} not started: the pass executor refused it ({})", door.repo, e.toString());
    }
  }

  /** Runs passes back to back while rings keep arriving during them. */
  private void passUntilQuiet(Door door) {
    Set<Doorbell> reasons = null;
    while (true) {
      try {
        pass(door, reasons);
      } finally {
        synchronized (door) {
          if (door.closed || door.next.isEmpty()) {
            door.running = false;
            door.next.clear();
            door.dueSinceNanos = -1;
            reasons = null;
          } else {
            reasons = Set.copyOf(door.next);
            door.next.clear();
          }
        }
      }
      if (reasons == null) {
        return;
      }
    }
  }

  /** One pass for {@code given} reasons, or, when null, for those rung since it was queued. */
  private void pass(Door door, Set<Doorbell> given) {
    if (given == null) {
      synchronized (door) {
        if (door.forgone) {
          door.forgone = false;
          door.queued = null;
          LOG.debug("Pass of {} forgone before it began", door.repo);
          return;
        }
      }
    }
    long number = passNumbers.incrementAndGet();
    Set<Doorbell> reasons = given;
    synchronized (door) {
      door.passStartedMillis = clock.wallMillis();
      door.dueSinceNanos = -1;
      if (reasons == null) {
        reasons = door.queued == null ? Set.of() : Set.copyOf(door.queued);
        door.queued = null;
      }
    }
    String label = "Pass #" + number + reasons + " " + door.repo;
    MDC.put("repo", door.repo.toString());
    MDC.put("pass", Long.toString(number));
    long started = clock.nanoTime();
    try {
      runner.run(door.repo, reasons);
      LOG.info("{} ended in {} ms", label, millisSince(started));
      synchronized (door) {
        door.cancelRetry();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("{} interrupted after {} ms", label, millisSince(started));
    } catch (java.io.IOException e) {
      // A repository that cannot be read (gone, unreadable, its PDS down): one line saying why.
      Duration retry = retryDelay();
      LOG.warn(
          "{} failed after {} ms; ringing again in {} s: {}",
          label,
          millisSince(started),
          retry.toSeconds(),
          e.getMessage());
      scheduleRetry(door, retry);
    } catch (Exception e) {
      Duration retry = retryDelay();
      LOG.warn(
          "{} failed after {} ms; ringing again in {} s",
          label,
          millisSince(started),
          retry.toSeconds(),
          e);
      scheduleRetry(door, retry);
    } finally {
      MDC.remove("repo");
      MDC.remove("pass");
    }
  }

  private void scheduleRetry(Door door, Duration delay) {
    synchronized (door) {
      if (door.closed || closed) {
        return;
      }
      door.cancelRetry();
      door.retry = clock.schedule(delay, () -> ring(door.repo, Doorbell.RETRY));
    }
  }

  private long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - startNanos);
  }

  /** One repository's reconcile task. Guarded by its own monitor. */
  private static final class Door {
    final RepoId repo;
    boolean running;
    boolean closed;
    long passStartedMillis = Long.MIN_VALUE;

    /** Since when a pass has been due and not begun, by the clock's nanoTime; -1 when none is. */
    long dueSinceNanos = -1;

    final Set<Doorbell> next = new LinkedHashSet<>();

    /** The reasons of a pass handed to the executor and not begun; null when there is none. */
    Set<Doorbell> queued;

    /** Whether the pass {@link #queued} is to be skipped as it begins ({@link Doors#forgo}). */
    boolean forgone;

    DoorClock.Cancellable retry;

    Door(RepoId repo) {
      this.repo = repo;
    }

    void cancelRetry() {
      if (retry != null) {
        retry.cancel();
        retry = null;
      }
    }
  }
}
