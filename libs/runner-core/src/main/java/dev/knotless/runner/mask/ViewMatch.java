package dev.knotless.runner.mask;

/**
 * Matches a masked string against raw output as a terminal or a decoder would show it: a
 * percent-escape ({@code %2f} or {@code %2F}) stands for the byte it encodes, {@code \/} for {@code
 * /} (as PHP and some JSON encoders write it), {@code +} for a space, and an ANSI escape sequence
 * (CSI such as a colour code, OSC such as a title or link) or a carriage return inside the string
 * is passed over. A byte that equals the masked string's next byte as written is always taken as
 * itself first, so every string written as is matches too.
 *
 * <p>Bounds, which make {@link SecretMask#window()}: a match of a string of {@code n} bytes spans
 * at most {@code 3n} raw bytes for the string itself (every byte percent-encoded) plus at most
 * {@link #MAX_SKIPPED_BYTES} of escape sequences and carriage returns. A string stretched further
 * is not matched. Stateless.
 */
final class ViewMatch {

  /** The most bytes of escape sequences and carriage returns one match passes over. */
  static final int MAX_SKIPPED_BYTES = 256;

  private static final byte ESC = 0x1b;

  private ViewMatch() {}

  /**
   * The end of a match of {@code p} starting at {@code i} and lying wholly before {@code end}, or
   * -1. A match starts at a byte (or escape) that stands for {@code p[0]}, never at a skipped one.
   */
  static int end(byte[] buf, int i, int end, byte[] p) {
    int j = i;
    int skipped = 0;
    for (int k = 0; k < p.length; ) {
      if (j >= end) {
        return -1;
      }
      byte want = p[k];
      byte b = buf[j];
      if (b == want) {
        j++;
        k++;
      } else if (b == '%') {
        if (j + 2 >= end || decodePercent(buf, j) != (want & 0xff)) {
          return -1;
        }
        j += 3;
        k++;
      } else if (b == '\\' && want == '/' && j + 1 < end && buf[j + 1] == '/') {
        j += 2;
        k++;
      } else if (b == '+' && want == ' ') {
        j++;
        k++;
      } else {
        int skip = k == 0 ? 0 : skippable(buf, j, end);
        skipped += skip;
        if (skip == 0 || skipped > MAX_SKIPPED_BYTES) {
          return -1;
        }
        j += skip;
      }
    }
    return j;
  }

  /**
   * The byte the escape at {@code i} stands for when it is not itself ({@code %xx}, {@code \/},
   * {@code +}), or -1.
   */
  static int decodedFirst(byte[] buf, int i, int end) {
    byte b = buf[i];
    if (b == '%') {
      return i + 2 < end ? decodePercent(buf, i) : -1;
    }
    if (b == '\\') {
      return i + 1 < end && buf[i + 1] == '/' ? '/' : -1;
    }
    return b == '+' ? ' ' : -1;
  }

  /** The byte {@code %xx} at {@code i} encodes, either case, or -1 if it is not one. */
  private static int decodePercent(byte[] buf, int i) {
    int hi = Character.digit(buf[i + 1], 16);
    int lo = Character.digit(buf[i + 2], 16);
    return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
  }

  /**
   * How many bytes at {@code i} are passed over inside a match: 1 for a carriage return, the whole
   * sequence for an ANSI escape ended before {@code end}, else 0.
   */
  static int skippable(byte[] buf, int i, int end) {
    byte b = buf[i];
    if (b == '\r') {
      return 1;
    }
    if (b != ESC || i + 1 >= end) {
      return 0;
    }
    int limit = Math.min(end, i + MAX_SKIPPED_BYTES + 1);
    byte kind = buf[i + 1];
    if (kind == '[') {
      // CSI: parameter bytes, intermediate bytes, one final byte.
      int m = i + 2;
      while (m < limit && buf[m] >= 0x30 && buf[m] <= 0x3f) {
        m++;
      }
      while (m < limit && buf[m] >= 0x20 && buf[m] <= 0x2f) {
        m++;
      }
      return m < limit && buf[m] >= 0x40 && buf[m] <= 0x7e ? m + 1 - i : 0;
    }
    if (kind == ']') {
      // OSC: ended by BEL or by ESC \.
      for (int m = i + 2; m < limit; m++) {
        if (buf[m] == 0x07) {
          return m + 1 - i;
        }
        if (buf[m] == ESC) {
          return m + 1 < limit && buf[m + 1] == '\\' ? m + 2 - i : 0;
        }
      }
      return 0;
    }
    if (kind == '(' || kind == ')') {
      // A character set chosen: ESC ( B.
      return i + 2 < end ? 3 : 0;
    }
    return kind >= 0x30 && kind <= 0x7e ? 2 : 0;
  }
}
