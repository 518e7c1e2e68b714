package dev.knotless.runner.engine;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Thread factories for the runner's pools: daemon threads named {@code <prefix>-<n>}. */
final class NamedThreads {
  private NamedThreads() {}

  /** Daemon threads named {@code prefix} and a number counted from 1. */
  static ThreadFactory of(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
