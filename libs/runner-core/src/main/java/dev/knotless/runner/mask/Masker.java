package dev.knotless.runner.mask;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Masks a stream of output written in pieces, so that a secret split across two writes is still
 * masked. Both the log writer and the live-output sender put a run's output through one.
 *
 * <p>It works on whole lines: a line ends at {@code \n} or {@code \r}, and no masked string holds
 * either, so once a line has ended nothing later can change how it is masked. {@link #write}
 * returns the masked bytes of every line ended so far and holds back the unended rest; {@link
 * #finish} returns what is left. A line still unended past {@link #MAX_LINE_BYTES} is handled as
 * the {@link Overflow} policy says, so the held bytes never grow past that.
 *
 * <p>Not thread-safe: one writer at a time.
 */
public final class Masker {

  /** How long an unended line may grow before the overflow policy applies: 1 MiB. */
  public static final int MAX_LINE_BYTES = 1 << 20;

  /** What is said in place of a line let go under {@link Overflow#DROP}. */
  public static final String DROPPED_NOTE = "[a line longer than 1 MiB was not sent]";

  /** What to do with a line that grows past {@link #MAX_LINE_BYTES} without ending. */
  public enum Overflow {
    /**
     * Pass it on, masked, holding back only the last {@code longest - 1} bytes, so a secret that
     * straddles the cut is still caught. For the log: nothing printed is lost.
     */
    EMIT,
    /**
     * Let the line go: nothing more of it is passed on, and {@link #DROPPED_NOTE} stands in its
     * place when it ends. For the live output, which only ever sends whole lines.
     */
    DROP
  }

  private final SecretMask mask;
  private final Overflow overflow;
  private final int maxLine;
  private byte[] buf = new byte[8192];
  private int len;
  private boolean dropping;

  /** A masker with the 1 MiB line limit. */
  public Masker(SecretMask mask, Overflow overflow) {
    this(mask, overflow, MAX_LINE_BYTES);
  }

  /** A masker with another line limit, in bytes; for tests. */
  Masker(SecretMask mask, Overflow overflow, int maxLineBytes) {
    this.mask = mask;
    this.overflow = overflow;
    this.maxLine = Math.max(maxLineBytes, mask.longest());
  }

  /** Takes the next bytes; returns what may now be passed on, masked (possibly nothing). */
  public byte[] write(byte[] b, int off, int len) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(len + 16);
    int from = off;
    int to = off + len;
    for (int end = lineEnd(b, from, to); end >= 0; end = lineEnd(b, from, to)) {
      int lineBytes = this.len + (end - from);
      if (dropping || (overflow == Overflow.DROP && lineBytes > maxLine)) {
        // The same line is let go however the writes cut it.
        this.len = 0;
        dropping = false;
        out.writeBytes(DROPPED_NOTE.getBytes(StandardCharsets.US_ASCII));
        out.write(b, end, 1);
      } else if (this.len == 0) {
        // Nothing held: mask straight from the caller's bytes, every ended line at once when no
        // line can be let go.
        int stop = overflow == Overflow.EMIT ? lastLineEnd(b, end, to) + 1 : end + 1;
        mask.scan(b, from, stop, stop, out);
        from = stop;
        continue;
      } else {
        append(b, from, end + 1 - from);
        consume(mask.scan(buf, 0, this.len, this.len, out));
      }
      from = end + 1;
    }
    if (dropping) {
      return out.toByteArray();
    }
    append(b, from, to - from);
    if (this.len > maxLine) {
      if (overflow == Overflow.EMIT) {
        consume(mask.scan(buf, 0, this.len, this.len - Math.max(0, mask.longest() - 1), out));
      } else {
        this.len = 0;
        dropping = true;
      }
    }
    return out.toByteArray();
  }

  /** Takes the next bytes. */
  public byte[] write(byte[] b) {
    return write(b, 0, b.length);
  }

  /** Ends the stream: returns the rest, masked. The masker is empty afterwards. */
  public byte[] finish() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(len + 64);
    if (dropping) {
      byte[] note = DROPPED_NOTE.getBytes(StandardCharsets.US_ASCII);
      out.write(note, 0, note.length);
      dropping = false;
    }
    consume(mask.scan(buf, 0, len, len, out));
    return out.toByteArray();
  }

  /** How many bytes are held back, waiting for their line to end. */
  public int held() {
    return len;
  }

  private static int lastLineEnd(byte[] b, int from, int to) {
    for (int i = to - 1; i >= from; i--) {
      if (b[i] == '\n' || b[i] == '\r') {
        return i;
      }
    }
    return -1;
  }

  private static int lineEnd(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] == '\n' || b[i] == '\r') {
        return i;
      }
    }
    return -1;
  }

  private void append(byte[] b, int off, int n) {
    if (len + n > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
    }
    System.arraycopy(b, off, buf, len, n);
    len += n;
  }

  private void consume(int n) {
    System.arraycopy(buf, n, buf, 0, len - n);
    len -= n;
    // Give back a buffer grown for a long line once it is no longer needed.
    if (buf.length > (1 << 16) && len < buf.length / 4) {
      buf = Arrays.copyOf(buf, Math.max(8192, len * 2));
    }
  }
}
