package dev.knotless.runner.exec;

import java.util.Objects;
import java.util.Optional;

/**
 * The handle through which another thread cancels a run (a newer commit, a stop, a dropped batch).
 *
 * <p>{@link #cancel} kills the running step's process group at once, from the calling thread; the
 * run then records the step as cancelled, skips the rest and ends cancelled. A run cancelled before
 * its first step runs nothing. The first reason given is kept: a later cancel never replaces it.
 * Thread-safe; one handle serves one run.
 */
public final class RunCancellation {

  private String reason;
  private Runnable killer;

  /**
   * Cancels the run for {@code reason} (written to the log, such as {@code a newer commit}).
   * Returns true if this call cancelled it, false if it was cancelled already.
   */
  public boolean cancel(String reason) {
    Objects.requireNonNull(reason, "cancel reason");
    Runnable kill;
    synchronized (this) {
      if (this.reason != null) {
        return false;
      }
      this.reason = reason;
      kill = killer;
    }
    // Killing outside the lock: a kill is one system call, but nothing here needs to wait on it.
    if (kill != null) {
      kill.run();
    }
    return true;
  }

  /** True once {@link #cancel} was called. */
  public synchronized boolean isCancelled() {
    return reason != null;
  }

  /** The reason the run was cancelled, if it was. */
  public synchronized Optional<String> reason() {
    return Optional.ofNullable(reason);
  }

  /**
   * Makes {@code kill} what a cancel runs, while a step runs. If the run is cancelled already, it
   * runs {@code kill} at once, so a cancel that lands while a step starts is never lost.
   */
  void attach(Runnable kill) {
    boolean now;
    synchronized (this) {
      killer = kill;
      now = reason != null;
    }
    if (now) {
      kill.run();
    }
  }

  /** Forgets the kill of a step that ended. */
  synchronized void detach() {
    killer = null;
  }
}
