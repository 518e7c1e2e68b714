package dev.knotless.storage.git;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * One version-2 pack index ({@code pack-*.idx}) of SHA-1 names, read in place: a name's place is
 * found by the fan-out table and a binary search of the sorted names, and its offset in the pack
 * from the offset tables. Nothing beyond the fan-out table is read ahead. Not thread-safe; close it
 * when done.
 */
final class PackIndex implements AutoCloseable {
  static final int SHA_BYTES = 20;
  private static final int FANOUT = 8;
  private static final int NAMES = FANOUT + 256 * 4;
  private static final byte[] MAGIC = {(byte) 0xff, 't', 'O', 'c'};

  private final FileChannel ch;
  private final ByteBuffer head;
  private final long count;
  private final ByteBuffer name = ByteBuffer.allocate(SHA_BYTES);
  private final ByteBuffer word = ByteBuffer.allocate(8);

  private PackIndex(FileChannel ch, ByteBuffer head, long count) {
    this.ch = ch;
    this.head = head;
    this.count = count;
  }

  /** The index at {@code path}, or null when it is not a version-2 index this can read. */
  static PackIndex open(Path path) throws IOException {
    FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
    try {
      ByteBuffer head = read(ch, 0, NAMES);
      if (head != null && Arrays.equals(Arrays.copyOf(head.array(), 4), MAGIC)) {
        long count = Integer.toUnsignedLong(head.getInt(NAMES - 4));
        // Names, CRCs and 4-byte offsets, then the two trailing checksums, at the least.
        if (head.getInt(4) == 2 && ch.size() >= NAMES + count * (SHA_BYTES + 8) + 2 * SHA_BYTES) {
          return new PackIndex(ch, head, count);
        }
      }
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    ch.close();
    return null;
  }

  /**
   * Where {@code sha} (20 bytes) is among the index's names, or -1 when it is not listed.
   *
   * @throws IOException when the index does not read as its fan-out table says
   */
  long find(byte[] sha) throws IOException {
    int first = sha[0] & 0xff;
    long lo = first == 0 ? 0 : Integer.toUnsignedLong(head.getInt(FANOUT + (first - 1) * 4));
    long hi = Integer.toUnsignedLong(head.getInt(FANOUT + first * 4));
    if (hi > count || lo > hi) {
      throw new IOException("pack index fan-out out of order");
    }
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      name.clear();
      if (ch.read(name, NAMES + mid * SHA_BYTES) != SHA_BYTES) {
        throw new IOException("pack index ends inside its names");
      }
      int c = Arrays.compareUnsigned(name.array(), sha);
      if (c == 0) {
        return mid;
      }
      if (c < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return -1;
  }

  /** The offset in the pack of the object at place {@code i} ({@link #find}). */
  long offset(long i) throws IOException {
    long small = NAMES + count * (SHA_BYTES + 4) + i * 4;
    int v = readInt(small);
    if (v >= 0) {
      return v;
    }
    long large = NAMES + count * (SHA_BYTES + 8) + (long) (v & 0x7fffffff) * 8;
    word.clear();
    if (ch.read(word, large) != 8) {
      throw new IOException("pack index ends inside its large offsets");
    }
    long off = word.getLong(0);
    if (off < 0) {
      throw new IOException("pack index gives a negative offset");
    }
    return off;
  }

  private int readInt(long at) throws IOException {
    word.clear().limit(4);
    if (ch.read(word, at) != 4) {
      throw new IOException("pack index ends inside its offsets");
    }
    return word.getInt(0);
  }

  private static ByteBuffer read(FileChannel ch, long at, int length) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(length);
    while (b.hasRemaining()) {
      if (ch.read(b, at + b.position()) < 0) {
        return null;
      }
    }
    return b.flip();
  }

  @Override
  public void close() throws IOException {
    ch.close();
  }
}
