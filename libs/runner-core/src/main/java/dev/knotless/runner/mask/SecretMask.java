package dev.knotless.runner.mask;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The byte strings a run's output must not show, each replaced by {@code ***}.
 *
 * <p>From each granted value it masks: the value itself, when it is one line; each line of a value
 * of several lines (a PEM key), trimmed of surrounding white space, since a tool may print the
 * lines with other indentation or line ends; and the value as tools commonly encode it: escaped in
 * a JSON string, percent-encoded, or base64 at any alignment ({@link EncodedForms}). Each of these
 * is also caught as a terminal or decoder would read it ({@link ViewMatch}): with any of its bytes
 * percent-encoded in either case, {@code /} written {@code \/}, and ANSI escape sequences or
 * carriage returns between its characters; the whole raw stretch is replaced. Strings under {@link
 * #MIN_BYTES} UTF-8 bytes are left alone, since masking them would mask ordinary output. Where two
 * could match at one place the one reaching furthest wins, so a secret inside another leaves
 * nothing behind.
 *
 * <p>No match spans a {@code \n}, and none spans more than {@link #window()} bytes: that is what
 * lets {@link Masker} stream. Other transformations (hex, reversed, a value printed in pieces on
 * separate lines) are not caught. Immutable and thread-safe. {@link #toString()} never shows a
 * value.
 */
public final class SecretMask {

  /** Values shorter than this, in UTF-8 bytes, are not masked. */
  public static final int MIN_BYTES = 4;

  /** What replaces each masked string. */
  public static final byte[] REPLACEMENT = "***".getBytes(StandardCharsets.US_ASCII);

  private static final SecretMask NONE = new SecretMask(List.of());

  /** Masked strings by their first byte, longest first. */
  private final byte[][][] byFirstByte = new byte[256][][];

  private final int count;
  private final int longest;

  private SecretMask(List<byte[]> patterns) {
    List<List<byte[]>> buckets = new ArrayList<>();
    for (int i = 0; i < 256; i++) {
      buckets.add(new ArrayList<>());
    }
    int max = 0;
    for (byte[] p : patterns) {
      buckets.get(p[0] & 0xff).add(p);
      max = Math.max(max, p.length);
    }
    for (int i = 0; i < 256; i++) {
      List<byte[]> b = buckets.get(i);
      b.sort(Comparator.comparingInt((byte[] p) -> p.length).reversed());
      byFirstByte[i] = b.isEmpty() ? null : b.toArray(new byte[0][]);
    }
    this.count = patterns.size();
    this.longest = max;
  }

  /** A mask that masks nothing. */
  public static SecretMask none() {
    return NONE;
  }

  /** The mask of these granted values. */
  public static SecretMask of(Collection<String> values) {
    Set<String> strings = new LinkedHashSet<>();
    for (String v : values) {
      if (v == null) {
        continue;
      }
      if (v.indexOf('\n') < 0 && v.indexOf('\r') < 0) {
        strings.add(v);
      } else {
        for (String line : v.split("\r\n|\r|\n")) {
          strings.add(line.strip());
        }
      }
      strings.addAll(EncodedForms.of(v));
    }
    List<byte[]> patterns = new ArrayList<>();
    for (String s : strings) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      if (b.length >= MIN_BYTES) {
        patterns.add(b);
      }
    }
    return patterns.isEmpty() ? NONE : new SecretMask(patterns);
  }

  /** True if it masks nothing. */
  public boolean isEmpty() {
    return count == 0;
  }

  /** The length in bytes of the longest masked string, 0 if none. */
  public int longest() {
    return longest;
  }

  /** Masks a whole text. */
  public String mask(String text) {
    return new String(mask(text.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
  }

  /** Masks whole bytes. */
  public byte[] mask(byte[] bytes) {
    if (isEmpty()) {
      return bytes.clone();
    }
    Out out = new Out(bytes.length);
    scan(bytes, 0, bytes.length, bytes.length, out);
    return out.bytes();
  }

  /**
   * The most raw bytes one masked occurrence can span: {@code 3 * longest()} (every byte
   * percent-encoded) plus {@link ViewMatch#MAX_SKIPPED_BYTES} of escape sequences and carriage
   * returns passed over; 0 for an empty mask. A value stretched further than that is not caught.
   * {@link Masker} holds back this many bytes of an unended line.
   */
  public int window() {
    return isEmpty() ? 0 : 3 * longest + ViewMatch.MAX_SKIPPED_BYTES;
  }

  /** Whether {@code bytes} hold a masked string anywhere, in any form this mask catches. */
  public boolean foundIn(byte[] bytes) {
    for (int i = 0; i < bytes.length && !isEmpty(); i++) {
      if (matchEnd(bytes, i, bytes.length) > i) {
        return true;
      }
    }
    return false;
  }

  /**
   * Masks {@code buf[start, end)} into {@code out}, deciding every position before {@code
   * decideBefore}: a masked string starting there is replaced if it lies wholly before {@code end}.
   * Each line end ({@code \n} or {@code \r}) passed on as is is marked in {@code out}.
   *
   * @return the index up to which the bytes were consumed; at least {@code decideBefore}, more when
   *     a match starting before it ran on
   */
  int scan(byte[] buf, int start, int end, int decideBefore, Out out) {
    int i = start;
    int plainFrom = start;
    while (i < decideBefore) {
      int b = buf[i] & 0xff;
      int matched =
          byFirstByte[b] != null || b == '%' || b == '\\' || b == '+' ? matchEnd(buf, i, end) : -1;
      if (matched > i) {
        out.write(buf, plainFrom, i - plainFrom);
        out.write(REPLACEMENT, 0, REPLACEMENT.length);
        i = matched;
        plainFrom = i;
      } else {
        if (b == '\n' || b == '\r') {
          out.markLineEnd(i, i + 1 - plainFrom);
        }
        i++;
      }
    }
    out.write(buf, plainFrom, i - plainFrom);
    return i;
  }

  /**
   * Where the longest-reaching masked string starting at {@code i} ends, or -1: as written, or as
   * {@link ViewMatch} reads it.
   */
  private int matchEnd(byte[] buf, int i, int end) {
    int best = longestEnd(byFirstByte[buf[i] & 0xff], buf, i, end, -1);
    int decoded = ViewMatch.decodedFirst(buf, i, end);
    return decoded < 0 ? best : longestEnd(byFirstByte[decoded], buf, i, end, best);
  }

  private static int longestEnd(byte[][] candidates, byte[] buf, int i, int end, int best) {
    if (candidates != null) {
      for (byte[] p : candidates) {
        best = Math.max(best, ViewMatch.end(buf, i, end, p));
      }
    }
    return best;
  }

  /**
   * Masked output as it is built, noting the last line end passed on as is, so that a reader of
   * whole lines can cut there. Not thread-safe.
   */
  static final class Out {
    private byte[] buf;
    private int count;
    private int lineEndRaw = -1;
    private int lineEndOut;

    Out(int capacity) {
      buf = new byte[Math.max(16, capacity)];
    }

    void write(byte[] b, int off, int n) {
      if (count + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + n));
      }
      System.arraycopy(b, off, buf, count, n);
      count += n;
    }

    /** Notes a line end at raw index {@code raw}, {@code pending} bytes past what was written. */
    void markLineEnd(int raw, int pending) {
      lineEndRaw = raw;
      lineEndOut = count + pending;
    }

    /** The raw index of the last line end passed on as is, or -1. */
    int lineEndRaw() {
      return lineEndRaw;
    }

    /** Drops what was written after the last line end passed on as is. */
    void cutAtLineEnd() {
      count = lineEndRaw < 0 ? 0 : lineEndOut;
    }

    int size() {
      return count;
    }

    byte[] bytes() {
      return count == buf.length ? buf : Arrays.copyOf(buf, count);
    }
  }

  @Override
  public String toString() {
    return "SecretMask[" + count + " strings]";
  }
}
