package dev.knotless.runner.mask;

import java.io.ByteArrayOutputStream;
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
 * a JSON string, percent-encoded, or base64 at any alignment ({@link EncodedForms}). Strings under
 * {@link #MIN_BYTES} UTF-8 bytes are left alone, since masking them would mask ordinary output.
 * Where two could match at one place the longest wins, so a secret inside another leaves nothing
 * behind. No masked string holds a line end ({@code \n} or {@code \r}), which is what lets {@link
 * Masker} work line by line.
 *
 * <p>Other transformations (hex, a value printed a character at a time, split over lines) are not
 * caught. Immutable and thread-safe. {@link #toString()} never shows a value.
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
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length);
    scan(bytes, 0, bytes.length, bytes.length, out);
    return out.toByteArray();
  }

  /**
   * Masks {@code buf[start, end)} into {@code out}, deciding every position before {@code
   * decideBefore}: a masked string starting there is replaced if it lies wholly before {@code end}.
   *
   * @return the index up to which the bytes were consumed; at least {@code decideBefore}, more when
   *     a match starting before it ran on
   */
  int scan(byte[] buf, int start, int end, int decideBefore, ByteArrayOutputStream out) {
    int i = start;
    int plainFrom = start;
    while (i < decideBefore) {
      byte[][] candidates = byFirstByte[buf[i] & 0xff];
      int matched = 0;
      if (candidates != null) {
        for (byte[] p : candidates) {
          int last = i + p.length - 1;
          if (last < end
              && buf[last] == p[p.length - 1]
              && Arrays.equals(buf, i, i + p.length, p, 0, p.length)) {
            matched = p.length;
            break;
          }
        }
      }
      if (matched > 0) {
        out.write(buf, plainFrom, i - plainFrom);
        out.write(REPLACEMENT, 0, REPLACEMENT.length);
        i += matched;
        plainFrom = i;
      } else {
        i++;
      }
    }
    out.write(buf, plainFrom, i - plainFrom);
    return i;
  }

  @Override
  public String toString() {
    return "SecretMask[" + count + " strings]";
  }
}
