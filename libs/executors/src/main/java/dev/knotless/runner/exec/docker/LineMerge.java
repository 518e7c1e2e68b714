package dev.knotless.runner.exec.docker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A step's stdout and stderr merged into the one stream its log is written from, a line at a time.
 *
 * <p>The daemon reads each stream from a pipe of its own and sends it in frames cut wherever a read
 * happened to end, often inside a line: even a tool that writes each line whole has its lines cut.
 * Were the frames merged as they come, a line of one stream would be spliced with a line of the
 * other, and masking would see neither whole. So each stream's bytes are passed on up to their last
 * line end ({@code \n} or {@code \r}) and the unended rest is held until its line ends.
 *
 * <p>An unended line is let go early when it passes {@link #HOLD_BYTES}, or when the reader has
 * found nothing else to read for {@link #PAUSE} (a prompt, say). Its stream then holds the line
 * open: the other stream's lines wait until it ends, unless they pile up past {@link #DEFER_BYTES},
 * so a line let go early is still not spliced by the other stream. Within one stream the bytes stay
 * in order and are passed on once each, untouched.
 *
 * <p>Thread-safe: any threads may {@link #add}; one thread reads {@link #stream}.
 */
final class LineMerge {

  /** The most of an unended line held back per stream. */
  static final int HOLD_BYTES = 1 << 16;

  /** The most of one stream's lines kept waiting while the other holds a line open. */
  static final int DEFER_BYTES = 4 << 20;

  /** How long the reader waits for more before it lets an unended line go. */
  static final Duration PAUSE = Duration.ofMillis(100);

  private static final byte[] END = new byte[0];

  private final LinkedBlockingQueue<byte[]> pieces = new LinkedBlockingQueue<>();
  private final ByteArrayOutputStream[] held;
  private int open = -1;
  private boolean ended;
  private volatile Throwable lost;

  /** A merge of {@code streams} streams, numbered from 0. */
  LineMerge(int streams) {
    held = new ByteArrayOutputStream[streams];
    for (int i = 0; i < streams; i++) {
      held[i] = new ByteArrayOutputStream();
    }
  }

  /** Takes bytes read from {@code stream}; copies them, so the caller may reuse its buffer. */
  synchronized void add(int stream, byte[] bytes, int from, int length) {
    if (ended || length == 0) {
      return;
    }
    held[stream].write(bytes, from, length);
    drain();
  }

  /** Passes on what may go now: whole lines, and the line going on past its hold. */
  private void drain() {
    if (open >= 0) {
      byte[] b = held[open].toByteArray();
      int end = firstLineEnd(b);
      if (end >= 0) {
        pass(open, b, end + 1);
        open = -1;
      } else {
        if (b.length > 0) {
          pass(open, b, b.length);
        }
        if (!deferredTooLong()) {
          return;
        }
        open = -1;
      }
    }
    for (int s = 0; s < held.length; s++) {
      byte[] b = held[s].toByteArray();
      int last = lastLineEnd(b);
      if (last >= 0) {
        pass(s, b, last + 1);
      } else if (b.length >= HOLD_BYTES && open < 0) {
        pass(s, b, b.length);
        open = s;
      }
    }
  }

  private boolean deferredTooLong() {
    for (int s = 0; s < held.length; s++) {
      if (s != open && held[s].size() >= DEFER_BYTES) {
        return true;
      }
    }
    return false;
  }

  /**
   * Queues the first {@code n} bytes of {@code b}, what {@code stream} held, and keeps the rest.
   */
  private void pass(int stream, byte[] b, int n) {
    pieces.add(n == b.length ? b : Arrays.copyOf(b, n));
    held[stream].reset();
    held[stream].write(b, n, b.length - n);
  }

  private static int firstLineEnd(byte[] b) {
    for (int i = 0; i < b.length; i++) {
      if (b[i] == '\n' || b[i] == '\r') {
        return i;
      }
    }
    return -1;
  }

  private static int lastLineEnd(byte[] b) {
    for (int i = b.length - 1; i >= 0; i--) {
      if (b[i] == '\n' || b[i] == '\r') {
        return i;
      }
    }
    return -1;
  }

  /**
   * Ends the merged stream once what was added is read: {@code why} null when the streams ended as
   * streams end, else why they were cut off, which the reader then gets as an {@link IOException}.
   */
  synchronized void end(Throwable why) {
    if (ended) {
      return;
    }
    lost = why;
    if (open >= 0) {
      byte[] b = held[open].toByteArray();
      if (b.length > 0) {
        pass(open, b, b.length);
      }
    }
    for (int s = 0; s < held.length; s++) {
      byte[] b = held[s].toByteArray();
      if (b.length > 0) {
        pass(s, b, b.length);
      }
    }
    ended = true;
    pieces.add(END);
  }

  /** Why the streams were cut off, or null. */
  Throwable lost() {
    return lost;
  }

  /** After a pause: lets the open line's bytes go, or else the first unended line, opening it. */
  private synchronized void letUnendedGo() {
    if (ended) {
      return;
    }
    int s = open;
    if (s < 0) {
      for (int i = 0; i < held.length && s < 0; i++) {
        if (held[i].size() > 0) {
          s = i;
        }
      }
    }
    if (s >= 0 && held[s].size() > 0) {
      byte[] b = held[s].toByteArray();
      pass(s, b, b.length);
      open = s;
    }
  }

  /** The merged stream, for one reader. */
  InputStream stream() {
    return new InputStream() {
      private byte[] current = new byte[0];
      private int at;
      private boolean done;

      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
          return 0;
        }
        while (!done && at >= current.length) {
          current = next();
          at = 0;
          done = current == END;
        }
        if (done) {
          Throwable why = lost;
          if (why != null) {
            throw new IOException("the step's output was cut off: " + why, why);
          }
          return -1;
        }
        int n = Math.min(len, current.length - at);
        System.arraycopy(current, at, b, off, n);
        at += n;
        return n;
      }

      private byte[] next() throws IOException {
        try {
          byte[] piece = pieces.poll(PAUSE.toNanos(), TimeUnit.NANOSECONDS);
          if (piece == null) {
            letUnendedGo();
            piece = pieces.take();
          }
          return piece;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while reading the step's output", e);
        }
      }
    };
  }
}
