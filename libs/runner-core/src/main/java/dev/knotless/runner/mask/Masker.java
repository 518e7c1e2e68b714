package dev.knotless.runner.mask;

import java.util.Arrays;

/**
 * Masks a stream of output written in pieces, so that a secret split across writes is still masked.
 * Both the log writer and the live-output sender put a run's output through one. Bytes pass through
 * as they are: nothing is decoded, and nothing is added but {@code ***} for a secret.
 *
 * <p>A masked string never spans a {@code \n}, nor more than {@link SecretMask#window()} bytes (W),
 * though it may span a {@code \r} or an escape sequence. So {@link #write} can pass on every byte
 * before {@code max(the last \n, end - W)}, moving that cut to the end of a secret that straddles
 * it, and hold back only the rest: a progress bar redrawn with {@code \r}, or a long line, still
 * flows. With an empty mask W is 0 and everything passes through at once. {@link #finish} returns
 * what is left. What is held back is at most W bytes under {@link Overflow#EMIT}.
 *
 * <p>Under {@link Overflow#DROP} only whole lines are passed on: a line ends at {@code \n}, or at a
 * {@code \r} once W bytes have followed it and no secret straddles it. A line (since the last line
 * end) past {@link #MAX_LINE_BYTES} is let go, up to the next {@code \n}, and {@link #DROPPED_NOTE}
 * stands in its place, however the writes cut it.
 *
 * <p>Not thread-safe: one writer at a time.
 */
public final class Masker {

  /** How long a line may grow before it is let go under {@link Overflow#DROP}: 1 MiB. */
  public static final int MAX_LINE_BYTES = 1 << 20;

  /** What is said in place of a line let go under {@link Overflow#DROP}. */
  public static final String DROPPED_NOTE = "[a line longer than 1 MiB was not sent]";

  private static final byte[] NOTE =
      (DROPPED_NOTE + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] NOTHING = new byte[0];

  /** How lines are passed on, and what becomes of one that grows too long. */
  public enum Overflow {
    /**
     * Pass on every byte as soon as no secret can still cross it, holding back at most {@link
     * SecretMask#window()} bytes. For the log: nothing printed is lost, however long the line.
     */
    EMIT,
    /**
     * Pass on whole lines only, and let a line past {@link #MAX_LINE_BYTES} go, with {@link
     * #DROPPED_NOTE} in its place. For the live output, which only ever sends whole lines.
     */
    DROP
  }

  private final SecretMask mask;
  private final Overflow overflow;
  private final int maxLine;
  private final int window;
  private byte[] buf = new byte[8192];
  private int head;
  private int len;

  /** Bytes written since the last line end, under DROP. */
  private long sinceLineEnd;

  /** Under DROP: letting a line go, until the next {@code \n}. */
  private boolean dropping;

  /** Under DROP: where the first line end held is, from {@code head}, or -1. */
  private int firstEnd = -1;

  /** Under DROP: where the last {@code \n} held is, from {@code head}, or -1. */
  private int lastNewline = -1;

  /** A masker with the 1 MiB line limit. */
  public Masker(SecretMask mask, Overflow overflow) {
    this(mask, overflow, MAX_LINE_BYTES);
  }

  /** A masker with another line limit, in bytes; for tests. */
  Masker(SecretMask mask, Overflow overflow, int maxLineBytes) {
    this.mask = mask;
    this.overflow = overflow;
    this.window = mask.window();
    this.maxLine = Math.max(maxLineBytes, window);
  }

  /** Takes the next bytes; returns what may now be passed on, masked (possibly nothing). */
  public byte[] write(byte[] b, int off, int len) {
    if (len == 0) {
      return NOTHING;
    }
    if (overflow == Overflow.DROP) {
      return drop(b, off, len);
    }
    if (window == 0) {
      return Arrays.copyOfRange(b, off, off + len);
    }
    return emit(b, off, len);
  }

  /** Takes the next bytes. */
  public byte[] write(byte[] b) {
    return write(b, 0, b.length);
  }

  /** Ends the stream: returns the rest, masked. The masker is empty afterwards. */
  public byte[] finish() {
    SecretMask.Out out = new SecretMask.Out(len + NOTE.length);
    if (dropping) {
      out.write(NOTE, 0, NOTE.length - 1);
      dropping = false;
    }
    mask.scan(buf, head, head + len, head + len, out);
    consume(len);
    sinceLineEnd = 0;
    return out.bytes();
  }

  /** How many bytes are held back, waiting for more output or their line to end. */
  public int held() {
    return len;
  }

  private byte[] emit(byte[] b, int off, int n) {
    byte[] src;
    int from;
    int to;
    if (len == 0) {
      // Nothing held: mask straight from the caller's bytes.
      src = b;
      from = off;
      to = off + n;
    } else {
      append(b, off, n);
      src = buf;
      from = head;
      to = head + len;
    }
    int cut = Math.max(from, to - window);
    for (int i = to - 1; i >= cut; i--) {
      if (src[i] == '\n') {
        cut = i + 1;
        break;
      }
    }
    if (cut == from) {
      if (src == b) {
        append(b, off, n);
      }
      return NOTHING;
    }
    SecretMask.Out out = new SecretMask.Out(cut - from);
    int done = mask.scan(src, from, to, cut, out);
    if (src == b) {
      append(b, done, to - done);
    } else {
      consume(done - from);
    }
    return out.bytes();
  }

  private byte[] drop(byte[] b, int off, int n) {
    SecretMask.Out out = new SecretMask.Out(n);
    int from = off;
    int to = off + n;
    while (from < to) {
      if (dropping) {
        int nl = indexOf(b, from, to, (byte) '\n');
        if (nl < 0) {
          break;
        }
        out.write(NOTE, 0, NOTE.length);
        dropping = false;
        sinceLineEnd = 0;
        from = nl + 1;
        continue;
      }
      // Take the bytes up to the next line end, or up to where this line passes the limit.
      int stop = (int) Math.min(to, from + (maxLine - sinceLineEnd) + 1);
      int end = lineEnd(b, from, stop);
      if (end >= 0) {
        append(b, from, end + 1 - from);
        sinceLineEnd = 0;
        from = end + 1;
      } else if (stop - from + sinceLineEnd > maxLine) {
        // Over the limit: what ended before this line goes, this line is let go.
        int lineStart = (int) (len - sinceLineEnd);
        append(b, from, stop - from);
        passLines(out, head + lineStart);
        consume(len);
        dropping = true;
        from = stop;
      } else {
        append(b, from, to - from);
        sinceLineEnd += to - from;
        from = to;
      }
    }
    int decideBefore = Math.max(head + lastNewline + 1, head + len - window);
    if (!dropping && firstEnd >= 0 && head + firstEnd < decideBefore) {
      passLines(out, decideBefore);
    }
    return out.bytes();
  }

  /**
   * Passes on, under DROP, the held bytes up to the last line end before {@code decideBefore} that
   * no secret straddles.
   */
  private void passLines(SecretMask.Out out, int decideBefore) {
    int lastEnd = lastLineEnd(buf, head, decideBefore);
    if (lastEnd < 0) {
      return;
    }
    SecretMask.Out lines = new SecretMask.Out(lastEnd + 1 - head);
    mask.scan(buf, head, head + len, lastEnd + 1, lines);
    lines.cutAtLineEnd();
    if (lines.lineEndRaw() >= 0) {
      out.write(lines.bytes(), 0, lines.size());
      consume(lines.lineEndRaw() + 1 - head);
    }
  }

  private static int lineEnd(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] == '\n' || b[i] == '\r') {
        return i;
      }
    }
    return -1;
  }

  private static int lastLineEnd(byte[] b, int from, int to) {
    for (int i = to - 1; i >= from; i--) {
      if (b[i] == '\n' || b[i] == '\r') {
        return i;
      }
    }
    return -1;
  }

  private static int indexOf(byte[] b, int from, int to, byte x) {
    for (int i = from; i < to; i++) {
      if (b[i] == x) {
        return i;
      }
    }
    return -1;
  }

  private static int lastIndexOf(byte[] b, int from, int to, byte x) {
    for (int i = to - 1; i >= from; i--) {
      if (b[i] == x) {
        return i;
      }
    }
    return -1;
  }

  private void append(byte[] b, int off, int n) {
    if (head + len + n > buf.length) {
      if (len + n <= buf.length / 2) {
        System.arraycopy(buf, head, buf, 0, len);
      } else {
        byte[] grown = new byte[Math.max(buf.length * 2, len + n)];
        System.arraycopy(buf, head, grown, 0, len);
        buf = grown;
      }
      head = 0;
    }
    System.arraycopy(b, off, buf, head + len, n);
    if (overflow == Overflow.DROP) {
      int nl = lastIndexOf(b, off, off + n, (byte) '\n');
      if (nl >= 0) {
        lastNewline = len + nl - off;
      }
      if (firstEnd < 0) {
        int end = lineEnd(b, off, off + n);
        firstEnd = end < 0 ? -1 : len + end - off;
      }
    }
    len += n;
  }

  private void consume(int n) {
    head += n;
    len -= n;
    lastNewline = Math.max(-1, lastNewline - n);
    if (firstEnd >= 0) {
      firstEnd -= n;
      if (firstEnd < 0) {
        int end = lineEnd(buf, head, head + len);
        firstEnd = end < 0 ? -1 : end - head;
      }
    }
    if (len == 0) {
      head = 0;
      // Give back a buffer grown for a long line once it is no longer needed.
      if (buf.length > (1 << 16)) {
        buf = new byte[8192];
      }
    }
  }
}
