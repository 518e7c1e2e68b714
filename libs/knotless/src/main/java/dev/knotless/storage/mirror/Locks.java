package dev.knotless.storage.mirror;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The mirror's locks: each held both within this JVM (file locks are per process) and across
 * processes, by an OS lock on a file the OS releases when its process ends. Thread-safe.
 */
final class Locks {

  private Locks() {}

  private static final java.util.concurrent.ConcurrentHashMap<
          Path, java.util.concurrent.locks.ReentrantLock>
      IN_PROCESS = new java.util.concurrent.ConcurrentHashMap<>();

  /** A lock held both within this JVM (file locks are per process) and across processes. */
  record Held(java.util.concurrent.locks.ReentrantLock local, FileChannel ch, FileLock lock)
      implements AutoCloseable {
    @Override
    public void close() throws IOException {
      try {
        lock.release();
        ch.close();
      } finally {
        local.unlock();
      }
    }
  }

  /** Takes the lock on {@code file}, waiting when {@code wait}, else null when it is held. */
  static Held hold(Path file, boolean wait) throws IOException {
    var local =
        IN_PROCESS.computeIfAbsent(
            file.toAbsolutePath(), f -> new java.util.concurrent.locks.ReentrantLock());
    if (wait) {
      local.lock();
    } else if (!local.tryLock()) {
      return null;
    }
    FileChannel ch = null;
    try {
      ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock = wait ? ch.lock() : ch.tryLock();
      if (lock == null) {
        ch.close();
        local.unlock();
        return null;
      }
      return new Held(local, ch, lock);
    } catch (IOException | RuntimeException e) {
      if (ch != null) {
        ch.close();
      }
      local.unlock();
      throw e;
    }
  }
}
