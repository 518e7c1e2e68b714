package dev.knotless.storage.git;

/**
 * Git's deltas: a base's size and the result's, then copies from the base and inserts of new bytes.
 * Every copy and insert is bounds-checked; a delta that does not add up is {@link CannotSay}.
 * Stateless.
 */
final class Deltas {
  private Deltas() {}

  /** Applies a git delta to {@code base}. */
  static byte[] apply(byte[] base, byte[] delta) throws CannotSay {
    int[] pos = {0};
    long baseSize = varint(delta, pos);
    long size = varint(delta, pos);
    if (baseSize != base.length) {
      throw new CannotSay("a delta for a base of another size");
    }
    if (size > StoredObjects.MAX_OBJECT_BYTES) {
      throw new CannotSay("too big");
    }
    byte[] out = new byte[(int) size];
    int o = 0;
    int i = pos[0];
    while (i < delta.length) {
      int op = delta[i++] & 0xff;
      if ((op & 0x80) != 0) {
        long off = 0;
        long len = 0;
        for (int k = 0; k < 4; k++) {
          if ((op & (1 << k)) != 0) {
            if (i >= delta.length) {
              throw new CannotSay("a delta copy that ends early");
            }
            off |= (long) (delta[i++] & 0xff) << (8 * k);
          }
        }
        for (int k = 0; k < 3; k++) {
          if ((op & (0x10 << k)) != 0) {
            if (i >= delta.length) {
              throw new CannotSay("a delta copy that ends early");
            }
            len |= (long) (delta[i++] & 0xff) << (8 * k);
          }
        }
        if (len == 0) {
          len = 0x10000;
        }
        if (off + len > base.length || o + len > out.length) {
          throw new CannotSay("a delta copy out of bounds");
        }
        System.arraycopy(base, (int) off, out, o, (int) len);
        o += (int) len;
      } else if (op != 0) {
        if (i + op > delta.length || o + op > out.length) {
          throw new CannotSay("a delta insert out of bounds");
        }
        System.arraycopy(delta, i, out, o, op);
        i += op;
        o += op;
      } else {
        throw new CannotSay("a delta with a reserved instruction");
      }
    }
    if (o != out.length) {
      throw new CannotSay("a delta shorter than its stated size");
    }
    return out;
  }

  /** A size in a delta's head: seven bits a byte, least significant first. */
  static long varint(byte[] b, int[] pos) throws CannotSay {
    long v = 0;
    int shift = 0;
    while (true) {
      if (pos[0] >= b.length || shift > 56) {
        throw new CannotSay("a delta's head does not end");
      }
      int c = b[pos[0]++] & 0xff;
      v |= (long) (c & 0x7f) << shift;
      shift += 7;
      if ((c & 0x80) == 0) {
        return v;
      }
    }
  }
}
