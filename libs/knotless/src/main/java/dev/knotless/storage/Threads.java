package dev.knotless.storage;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared pool for blocking work (HTTP calls, git processes, stream draining). Daemon threads,
 * so a CLI exits without shutting it down. Thread-safe.
 */
public final class Threads {
  private static final AtomicInteger COUNT = new AtomicInteger();

  /** A cached pool: tasks here block on I/O, so the pool must not cap them at the core count. */
  public static final ExecutorService IO =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "knotless-io-" + COUNT.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  private Threads() {}
}
