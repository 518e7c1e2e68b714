package dev.knotless.storage.git;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Objects read straight from a repository's files, in this JVM: loose objects, and packs with a
 * version-2 index, deltas applied. A pass reads a pushed commit's workflows and changed paths this
 * way in about a millisecond, where a {@code cat-file --batch-command} costs a process start and
 * its set-up (13 to 33 ms on the path from a push to its check running, and CPU the PDS wanted).
 *
 * <p>It answers only what it finds and can read. Empty means "ask git": the object is not in the
 * files as they were listed (it may be in a pack written since), it is bigger than {@link
 * #MAX_OBJECT_BYTES}, its delta chain is longer than {@value #MAX_CHAIN}, or a file does not read
 * as the format says. The same guard as {@link ObjectFiles} applies: a repository with alternates
 * or another object directory, or a name that is not SHA-1, is always git's. The files are the
 * mirror's own, written by {@code index-pack} or {@link LooseObjects}, which checked them; still,
 * every length and offset is bounds-checked, so a damaged file gives empty, never a wrong object.
 * Not thread-safe; close it when done.
 */
public final class StoredObjects implements AutoCloseable {
  /** The largest object read here; a bigger one is git's. */
  public static final int MAX_OBJECT_BYTES = 16 << 20;

  /** The longest delta chain followed (git's own packs stop at 50 by default). */
  static final int MAX_CHAIN = 1000;

  private static final String[] TYPES = {null, "commit", "tree", "blob", "tag"};
  private static final int OFS_DELTA = 6;
  private static final int REF_DELTA = 7;
  private static final int CHUNK = 8192;

  /** An object's type and size. */
  public record Header(String type, long size) {}

  /** An object's type and content. */
  public record Obj(String type, byte[] data) {}

  /** The file says something this reader does not follow: git is asked instead. */
  static final class CannotSay extends Exception {
    CannotSay(String why) {
      super(why, null, false, false);
    }
  }

  private final Path objects;
  private final Inflater inflater = new Inflater();
  private List<Pack> packs;

  private StoredObjects(Path objects) {
    this.objects = objects;
  }

  /** A reader of {@code git}'s repository, or empty when its files may not hold all it has. */
  public static Optional<StoredObjects> open(Git git) {
    return ObjectFiles.readable(git.gitDir(), git.env())
        ? Optional.of(new StoredObjects(git.gitDir().resolve("objects")))
        : Optional.empty();
  }

  /** The object's type and size, read without its content where the files allow. */
  public Optional<Header> header(String sha) {
    if (!ObjectFiles.isSha1(sha)) {
      return Optional.empty();
    }
    try {
      byte[] loose = looseFile(sha);
      if (loose != null) {
        return Optional.of(looseHeader(loose).header);
      }
      Located at = locate(HexFormat.of().parseHex(sha));
      return at == null ? Optional.empty() : Optional.of(packedHeader(at.pack, at.offset, 0));
    } catch (CannotSay | IOException e) {
      return Optional.empty();
    }
  }

  /**
   * The object's type and content, checked to hash to {@code sha}: a damaged file cannot pass off
   * another object as this one.
   */
  public Optional<Obj> read(String sha) {
    if (!ObjectFiles.isSha1(sha)) {
      return Optional.empty();
    }
    try {
      byte[] loose = looseFile(sha);
      Obj o;
      if (loose != null) {
        o = looseObject(loose);
      } else {
        Located at = locate(HexFormat.of().parseHex(sha));
        if (at == null) {
          return Optional.empty();
        }
        o = packed(at.pack, at.offset, 0);
      }
      return named(o).equals(sha) ? Optional.of(o) : Optional.empty();
    } catch (CannotSay | IOException e) {
      return Optional.empty();
    }
  }

  /** The SHA-1 name of {@code o}. */
  private static String named(Obj o) {
    try {
      java.security.MessageDigest d = java.security.MessageDigest.getInstance("SHA-1");
      d.update((o.type() + " " + o.data().length + "\0").getBytes(StandardCharsets.US_ASCII));
      return HexFormat.of().formatHex(d.digest(o.data()));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-1", e);
    }
  }

  // Loose objects: a zlib stream of "<type> <size>\0<content>".

  /**
   * A loose object's file, or null when there is none. Loose objects here are the small packs
   * {@link LooseObjects} wrote, so one bigger than any object read here is git's to read.
   */
  private byte[] looseFile(String sha) throws IOException, CannotSay {
    Path file = objects.resolve(sha.substring(0, 2)).resolve(sha.substring(2));
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size > MAX_OBJECT_BYTES + (1 << 16)) {
        throw new CannotSay("a loose object too big to read here");
      }
      ByteBuffer b = ByteBuffer.allocate((int) size);
      while (b.hasRemaining() && ch.read(b) >= 0) {
        // Read it whole.
      }
      return b.array();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private record LooseHead(Header header, int contentAt) {}

  /** The header of a loose object, from the first bytes of {@code file} inflated. */
  private LooseHead looseHeader(byte[] file) throws CannotSay {
    byte[] first = new byte[64];
    int n = inflate(file, first, true);
    int nul = -1;
    for (int i = 0; i < n; i++) {
      if (first[i] == 0) {
        nul = i;
        break;
      }
    }
    if (nul < 0) {
      throw new CannotSay("a loose object's header does not end");
    }
    String head = new String(first, 0, nul, StandardCharsets.US_ASCII);
    int space = head.indexOf(' ');
    if (space < 0) {
      throw new CannotSay("a loose object's header has no size");
    }
    String type = head.substring(0, space);
    if (!type.equals("commit")
        && !type.equals("tree")
        && !type.equals("blob")
        && !type.equals("tag")) {
      throw new CannotSay("a loose object of type " + type);
    }
    long size;
    try {
      size = Long.parseLong(head.substring(space + 1));
    } catch (NumberFormatException e) {
      throw new CannotSay("a loose object's size does not parse");
    }
    if (size < 0) {
      throw new CannotSay("a loose object of negative size");
    }
    return new LooseHead(new Header(type, size), nul + 1);
  }

  private Obj looseObject(byte[] file) throws CannotSay {
    LooseHead h = looseHeader(file);
    if (h.header.size() > MAX_OBJECT_BYTES) {
      throw new CannotSay("too big");
    }
    byte[] all = new byte[h.contentAt + (int) h.header.size()];
    if (inflate(file, all, false) != all.length) {
      throw new CannotSay("a loose object shorter than its header says");
    }
    byte[] data = new byte[(int) h.header.size()];
    System.arraycopy(all, h.contentAt, data, 0, data.length);
    return new Obj(h.header.type(), data);
  }

  /**
   * Inflates {@code file} into {@code out}: the first bytes only with {@code partial}, else exactly
   * {@code out.length} bytes that end the stream.
   */
  private int inflate(byte[] file, byte[] out, boolean partial) throws CannotSay {
    inflater.reset();
    inflater.setInput(file);
    try {
      int got = 0;
      while (got < out.length) {
        int n = inflater.inflate(out, got, out.length - got);
        if (n == 0) {
          if (inflater.finished() || inflater.needsInput() || inflater.needsDictionary()) {
            break;
          }
        }
        got += n;
      }
      if (!partial && !(inflater.finished() || inflater.inflate(new byte[1]) == 0)) {
        throw new CannotSay("a loose object longer than its header says");
      }
      return got;
    } catch (DataFormatException e) {
      throw new CannotSay("a loose object does not inflate");
    }
  }

  // Packs: each entry a type and size, a delta's base, then a zlib stream.

  /** A pack and its index, opened when first searched. */
  private static final class Pack implements AutoCloseable {
    final Path idxPath;
    PackIndex idx;
    FileChannel data;
    long size;
    boolean unreadable;

    Pack(Path idxPath) {
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
          size = data.size();
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
  }

  private record Located(Pack pack, long offset) {}

  private Located locate(byte[] sha) throws IOException, CannotSay {
    if (packs == null) {
      packs = new ArrayList<>();
      for (Path idx : ObjectFiles.indexes(objects.resolve("pack"))) {
        packs.add(new Pack(idx));
      }
    }
    for (Pack p : packs) {
      PackIndex idx = p.index();
      if (idx == null) {
        throw new CannotSay("a pack index that is not version 2");
      }
      long i = idx.find(sha);
      if (i >= 0) {
        return new Located(p, idx.offset(i));
      }
    }
    return null;
  }

  /** One entry's head: its type and stated size, where its data starts, and its delta's base. */
  private record Entry(int type, long size, long dataAt, long baseOffset, byte[] baseSha) {}

  private Entry entry(Pack p, long offset) throws IOException, CannotSay {
    ByteBuffer b = ByteBuffer.allocate(32);
    if (offset < 12 || offset >= p.size) {
      throw new CannotSay("an offset outside the pack");
    }
    p.data.read(b, offset);
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

  private Header packedHeader(Pack p, long offset, int depth) throws IOException, CannotSay {
    Entry e = entry(p, offset);
    if (e.type <= 4) {
      return new Header(TYPES[e.type], e.size);
    }
    // A delta: its size is the second number of its data, its type its base's.
    byte[] start = new byte[(int) Math.min(e.size, 20)];
    inflateAt(p, e.dataAt, start, true);
    int[] pos = {0};
    varint(start, pos);
    long size = varint(start, pos);
    BaseAt b = baseAt(p, e, depth);
    String type =
        b.loose != null
            ? looseHeader(b.loose).header.type()
            : packedHeader(b.pack, b.offset, depth + 1).type();
    return new Header(type, size);
  }

  private Obj packed(Pack p, long offset, int depth) throws IOException, CannotSay {
    Entry e = entry(p, offset);
    if (e.size > MAX_OBJECT_BYTES) {
      throw new CannotSay("too big");
    }
    byte[] data = new byte[(int) e.size];
    inflateAt(p, e.dataAt, data, false);
    if (e.type <= 4) {
      return new Obj(TYPES[e.type], data);
    }
    BaseAt b = baseAt(p, e, depth);
    Obj base = b.loose != null ? looseObject(b.loose) : packed(b.pack, b.offset, depth + 1);
    return new Obj(base.type(), apply(base.data(), data));
  }

  /** Where a delta's base is: an entry of a pack, or a loose object's file. */
  private record BaseAt(Pack pack, long offset, byte[] loose) {}

  private BaseAt baseAt(Pack p, Entry e, int depth) throws IOException, CannotSay {
    if (depth >= MAX_CHAIN) {
      throw new CannotSay("a delta chain longer than " + MAX_CHAIN);
    }
    if (e.type == OFS_DELTA) {
      return new BaseAt(p, e.baseOffset, null);
    }
    byte[] loose = looseFile(HexFormat.of().formatHex(e.baseSha));
    if (loose != null) {
      return new BaseAt(null, 0, loose);
    }
    Located at = locate(e.baseSha);
    if (at == null) {
      throw new CannotSay("a delta's base is not in the files");
    }
    return new BaseAt(at.pack, at.offset, null);
  }

  /** Inflates the zlib stream at {@code at}: its first bytes with {@code partial}, else all. */
  private void inflateAt(Pack p, long at, byte[] out, boolean partial)
      throws IOException, CannotSay {
    inflater.reset();
    ByteBuffer in = ByteBuffer.allocate(CHUNK);
    long pos = at;
    int got = 0;
    try {
      while (got < out.length) {
        if (inflater.needsInput()) {
          in.clear();
          int n = p.data.read(in, pos);
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
    if (got != out.length || (!partial && !inflater.finished() && !endsHere())) {
      throw new CannotSay("an entry's size and its data disagree");
    }
  }

  /** Whether the stream ends with no more output, once the stated size was inflated. */
  private boolean endsHere() {
    try {
      return inflater.inflate(new byte[1]) == 0;
    } catch (DataFormatException e) {
      return false;
    }
  }

  /** Applies a git delta to {@code base}. */
  static byte[] apply(byte[] base, byte[] delta) throws CannotSay {
    int[] pos = {0};
    long baseSize = varint(delta, pos);
    long size = varint(delta, pos);
    if (baseSize != base.length) {
      throw new CannotSay("a delta for a base of another size");
    }
    if (size > MAX_OBJECT_BYTES) {
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
  private static long varint(byte[] b, int[] pos) throws CannotSay {
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

  @Override
  public void close() {
    inflater.end();
    if (packs != null) {
      for (Pack p : packs) {
        try {
          p.close();
        } catch (IOException e) {
          // Read-only files: nothing is lost.
        }
      }
    }
  }
}
