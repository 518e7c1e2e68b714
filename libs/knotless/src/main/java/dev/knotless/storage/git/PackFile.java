package dev.knotless.storage.git;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * One pack and its index, opened when first searched: each entry a type and size, a delta's base
 * (by offset or by name), then a zlib stream. Reads entries in place with bounds checks; {@link
 * CannotSay} for anything it does not follow. Not thread-safe; close it when done.
 */
final class PackFile implements AutoCloseable {
  static final int OFS_DELTA = 6;
  static final int REF_DELTA = 7;
  private static final int CHUNK = 8192;

  private final Path idxPath;
  private PackIndex idx;
  private FileChannel data;
  private long length;
  private boolean unreadable;

  PackFile(Path idxPath) {
    this.idxPath = idxPath;
  }

  /** The index, or null when it is not one this reads. */
  PackIndex index() throws IOException {
    if (idx == null && !unreadable) {
      idx = PackIndex.open(idxPath);
      if (idx == null) {
        unreadable = true;
      } else {
        String name = idxPath.getFileName().toString();
        Path pack = idxPath.resolveSibling(name.substring(0, name.length() - 4) + ".pack");
        data = FileChannel.open(pack, StandardOpenOption.READ);
        length = data.size();
      }
    }
    return idx;
  }

  @Override
  public void close() throws IOException {
    try (PackIndex i = idx;
        FileChannel d = data) {
      // Both closed, whichever throws.
    }
  }

  /** One entry's head: its type and stated size, where its data starts, and its delta's base. */
  record Entry(int type, long size, long dataAt, long baseOffset, byte[] baseSha) {}

  Entry entry(long offset) throws IOException, CannotSay {
    ByteBuffer b = ByteBuffer.allocate(32);
    if (offset < 12 || offset >= length) {
      throw new CannotSay("an offset outside the pack");
    }
    data.read(b, offset);
    b.flip();
    int pos = 0;
    int c = next(b, pos++);
    int type = (c >> 4) & 7;
    long size = c & 0x0f;
    int shift = 4;
    while ((c & 0x80) != 0) {
      if (shift > 53) {
        throw new CannotSay("an entry size that does not end");
      }
      c = next(b, pos++);
      size |= (long) (c & 0x7f) << shift;
      shift += 7;
    }
    long baseOffset = -1;
    byte[] baseSha = null;
    if (type == OFS_DELTA) {
      c = next(b, pos++);
      long rel = c & 0x7f;
      while ((c & 0x80) != 0) {
        if (rel > (Long.MAX_VALUE >> 8)) {
          throw new CannotSay("a delta base offset that does not end");
        }
        c = next(b, pos++);
        rel = ((rel + 1) << 7) | (c & 0x7f);
      }
      baseOffset = offset - rel;
      if (rel <= 0 || baseOffset < 12) {
        throw new CannotSay("a delta base outside the pack");
      }
    } else if (type == REF_DELTA) {
      baseSha = new byte[PackIndex.SHA_BYTES];
      for (int i = 0; i < baseSha.length; i++) {
        baseSha[i] = (byte) next(b, pos++);
      }
    } else if (type < 1 || type > 4) {
      throw new CannotSay("an entry of type " + type);
    }
    return new Entry(type, size, offset + pos, baseOffset, baseSha);
  }

  private static int next(ByteBuffer b, int pos) throws CannotSay {
    if (pos >= b.limit()) {
      throw new CannotSay("an entry's head runs past what was read");
    }
    return b.get(pos) & 0xff;
  }

  /**
   * Inflates the zlib stream at {@code at} with {@code inflater}: its first bytes with {@code
   * partial}, else all of it, which must end right there.
   */
  void inflate(long at, byte[] out, boolean partial, Inflater inflater)
      throws IOException, CannotSay {
    inflater.reset();
    ByteBuffer in = ByteBuffer.allocate(CHUNK);
    long pos = at;
    int got = 0;
    try {
      while (got < out.length) {
        if (inflater.needsInput()) {
          in.clear();
          int n = data.read(in, pos);
          if (n <= 0) {
            throw new CannotSay("an entry runs past the pack's end");
          }
          pos += n;
          in.flip();
          inflater.setInput(in);
        }
        int n = inflater.inflate(out, got, out.length - got);
        if (n == 0 && (inflater.finished() || inflater.needsDictionary())) {
          break;
        }
        got += n;
      }
    } catch (DataFormatException e) {
      throw new CannotSay("an entry does not inflate");
    }
    if (got != out.length || (!partial && !inflater.finished() && !endsHere(inflater))) {
      throw new CannotSay("an entry's size and its data disagree");
    }
  }

  /** Whether the stream ends with no more output, once the stated size was inflated. */
  private static boolean endsHere(Inflater inflater) {
    try {
      return inflater.inflate(new byte[1]) == 0;
    } catch (DataFormatException e) {
      return false;
    }
  }
}
