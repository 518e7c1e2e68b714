package dev.knotless.storage.pack;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Where a pack goes: inline in its record up to {@value #INLINE_MAX} bytes, else over blobs cut
 * into parts. Sizes are bytes. Pure and thread-safe.
 */
public final class PackPlacement {
  /** The largest pack stored inline: 192 KiB, which is the lexicon's 256 KiB of base64. */
  public static final int INLINE_MAX = 192 * 1024;

  /** The part size when the PDS allows it. */
  public static final int DEFAULT_PART = 4_000_000;

  /** Halving stops once parts are no larger than this. */
  public static final int MIN_PART = 64 * 1024;

  private PackPlacement() {}

  public static boolean inline(long packSize) {
    return packSize <= INLINE_MAX;
  }

  /** The first part size to try: 4,000,000, never above the advertised blob limit (0 = none). */
  public static int firstPartSize(long blobLimit) {
    if (blobLimit > 0 && blobLimit < DEFAULT_PART) {
      return (int) blobLimit;
    }
    return DEFAULT_PART;
  }

  /** The next size after a part was refused as too large, or empty when no smaller try is left. */
  public static OptionalInt halve(int partSize) {
    if (partSize <= MIN_PART) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(partSize / 2);
  }

  /** Cuts {@code length} bytes into consecutive [offset, end) parts of {@code partSize}. */
  public static List<long[]> cut(long length, int partSize) {
    List<long[]> out = new ArrayList<>();
    for (long off = 0; off < length; off += partSize) {
      out.add(new long[] {off, Math.min(length, off + partSize)});
    }
    return out;
  }

  /** The object count in a pack's header, or -1 if {@code pack} does not start like a pack. */
  public static long objectCount(byte[] pack) {
    if (pack.length < 12 || pack[0] != 'P' || pack[1] != 'A' || pack[2] != 'C' || pack[3] != 'K') {
      return -1;
    }
    return ((pack[8] & 0xffL) << 24)
        | ((pack[9] & 0xffL) << 16)
        | ((pack[10] & 0xffL) << 8)
        | (pack[11] & 0xffL);
  }
}
