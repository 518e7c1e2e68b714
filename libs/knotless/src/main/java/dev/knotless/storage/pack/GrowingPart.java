package dev.knotless.storage.pack;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Arrays;

/**
 * One part of a pack while {@code git pack-objects} is still writing it: the writer fills its array
 * and says how far, and {@link #stream} reads what is there, waiting for more until the part is
 * finished. So an upload of the part goes out as the part is written, not once it is full.
 * Thread-safe: one writer, any number of readers.
 */
final class GrowingPart {
  private final byte[] array;
  private int filled;
  private boolean finished;
  private IOException failed;

  /** A part in {@code array}, of which the first {@code filled} bytes are written. */
  GrowingPart(byte[] array, int filled) {
    this.array = array;
    this.filled = filled;
  }

  /** The array the writer fills. */
  byte[] array() {
    return array;
  }

  /** The writer has filled the array up to {@code upTo}. */
  synchronized void filledTo(int upTo) {
    filled = upTo;
    notifyAll();
  }

  /** The writer is done with this part: what is filled is all of it. */
  synchronized void finish() {
    finished = true;
    notifyAll();
  }

  /** The writer failed: readers fail with {@code e} rather than wait. */
  synchronized void fail(IOException e) {
    failed = e;
    notifyAll();
  }

  /** How much is filled so far. */
  synchronized int filled() {
    return filled;
  }

  /** The whole part, once the writer has finished it. */
  synchronized byte[] awaitBytes() throws IOException {
    while (!finished && failed == null) {
      await();
    }
    if (failed != null) {
      throw failed;
    }
    return filled == array.length ? array : Arrays.copyOf(array, filled);
  }

  /** The part's bytes as they are written, ending once it is finished. */
  InputStream stream() {
    return new InputStream() {
      private int pos;

      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
          return 0;
        }
        int upTo;
        synchronized (GrowingPart.this) {
          while (pos == filled && !finished && failed == null) {
            await();
          }
          if (failed != null) {
            throw new IOException("the pack could not be read: " + failed.getMessage(), failed);
          }
          upTo = filled;
        }
        if (pos == upTo) {
          return -1;
        }
        // Bytes below filled are written once and never again: safe to copy outside the lock.
        int n = Math.min(len, upTo - pos);
        System.arraycopy(array, pos, b, off, n);
        pos += n;
        return n;
      }
    };
  }

  private void await() throws InterruptedIOException {
    try {
      wait();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for the pack to be written");
    }
  }
}
