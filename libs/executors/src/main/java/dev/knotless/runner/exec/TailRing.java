package dev.knotless.runner.exec;

/**
 * The last {@code capacity} bytes of a stream, and how many came before them. Not thread-safe: the
 * run's log holds its lock around every call.
 */
final class TailRing {

  private final byte[] ring;
  private long total;

  TailRing(int capacity) {
    this.ring = new byte[capacity];
  }

  void add(byte[] bytes, int from, int length) {
    int cap = ring.length;
    if (length >= cap) {
      System.arraycopy(bytes, from + length - cap, ring, 0, cap);
      total += length;
      // The ring now starts at index total % cap; rotate so the copy below stays simple.
      rotateTo((int) (total % cap));
      return;
    }
    int at = (int) (total % cap);
    int first = Math.min(length, cap - at);
    System.arraycopy(bytes, from, ring, at, first);
    System.arraycopy(bytes, from + first, ring, 0, length - first);
    total += length;
  }

  private void rotateTo(int start) {
    if (start == 0) {
      return;
    }
    byte[] copy = ring.clone();
    int cap = ring.length;
    // copy holds the stream's last cap bytes in order from 0; place byte 0 at index start.
    System.arraycopy(copy, 0, ring, start, cap - start);
    System.arraycopy(copy, cap - start, ring, 0, start);
  }

  /** Every byte added so far. */
  long total() {
    return total;
  }

  /** The bytes kept, oldest first. */
  byte[] kept() {
    int cap = ring.length;
    if (total <= cap) {
      byte[] out = new byte[(int) total];
      System.arraycopy(ring, 0, out, 0, (int) total);
      return out;
    }
    int start = (int) (total % cap);
    byte[] out = new byte[cap];
    System.arraycopy(ring, start, out, 0, cap - start);
    System.arraycopy(ring, 0, out, cap - start, start);
    return out;
  }
}
