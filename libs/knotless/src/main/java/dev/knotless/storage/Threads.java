package dev.knotless.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared pool for blocking work (HTTP calls, git processes, stream draining). Daemon threads,
 * so a CLI exits without shutting it down. Thread-safe.
 */
public final class Threads {
  private static final AtomicInteger COUNT = new AtomicInteger();

  /** A cached pool: tasks here block on I/O, so the pool must not cap them at the core count. */
  public static final ExecutorService IO =
      Executors.newCachedThreadPool(daemon(() -> "knotless-io-" + COUNT.incrementAndGet()));

  private Threads() {}

  /** Makes daemon threads named by {@code name}, so that none holds a JVM's exit up. */
  public static ThreadFactory daemon(java.util.function.Supplier<String> name) {
    return r -> {
      Thread t = new Thread(r, name.get());
      t.setDaemon(true);
      return t;
    };
  }

  /** Makes daemon threads all named {@code name}. */
  public static ThreadFactory daemon(String name) {
    return daemon(() -> name);
  }

  /** A call that may fail with an I/O error. */
  @FunctionalInterface
  public interface IoCall<T> {
    T get() throws IOException;
  }

  /**
   * Runs {@code call} on {@link #IO}. An I/O failure ends the future with an {@link
   * UncheckedIOException}, which {@link RangeScanner#join} gives back as the I/O failure.
   */
  public static <T> CompletableFuture<T> async(IoCall<T> call) {
    return async(call, IO);
  }

  /** As {@link #async(IoCall)}, on {@code executor}. */
  public static <T> CompletableFuture<T> async(IoCall<T> call, Executor executor) {
    Trace.Sink trace = Trace.current();
    return CompletableFuture.supplyAsync(
        () ->
            Trace.during(
                trace,
                () -> {
                  try {
                    return call.get();
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                }),
        executor);
  }
}
