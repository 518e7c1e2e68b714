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

  /** An object's type and size. */
  public record Header(String type, long size) {}

  /** An object's type and content. */
  public record Obj(String type, byte[] data) {}

  private final Path objects;
  private final Inflater inflater = new Inflater();
  private List<PackFile> packs;

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
      return LooseObjects.name(o.type(), o.data()).equals(sha) ? Optional.of(o) : Optional.empty();
    } catch (CannotSay | IOException e) {
      return Optional.empty();
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

  private record Located(PackFile pack, long offset) {}

  private Located locate(byte[] sha) throws IOException, CannotSay {
    if (packs == null) {
      packs = new ArrayList<>();
      for (Path idx : ObjectFiles.indexes(objects.resolve("pack"))) {
        packs.add(new PackFile(idx));
      }
    }
    for (PackFile p : packs) {
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

  private Header packedHeader(PackFile p, long offset, int depth) throws IOException, CannotSay {
    PackFile.Entry e = p.entry(offset);
    if (e.type() <= 4) {
      return new Header(TYPES[e.type()], e.size());
    }
    // A delta: its size is the second number of its data, its type its base's.
    byte[] start = new byte[(int) Math.min(e.size(), 20)];
    p.inflate(e.dataAt(), start, true, inflater);
    int[] pos = {0};
    Deltas.varint(start, pos);
    long size = Deltas.varint(start, pos);
    BaseAt b = baseAt(p, e, depth);
    String type =
        b.loose != null
            ? looseHeader(b.loose).header.type()
            : packedHeader(b.pack, b.offset, depth + 1).type();
    return new Header(type, size);
  }

  private Obj packed(PackFile p, long offset, int depth) throws IOException, CannotSay {
    PackFile.Entry e = p.entry(offset);
    if (e.size() > MAX_OBJECT_BYTES) {
      throw new CannotSay("too big");
    }
    byte[] data = new byte[(int) e.size()];
    p.inflate(e.dataAt(), data, false, inflater);
    if (e.type() <= 4) {
      return new Obj(TYPES[e.type()], data);
    }
    BaseAt b = baseAt(p, e, depth);
    Obj base = b.loose != null ? looseObject(b.loose) : packed(b.pack, b.offset, depth + 1);
    return new Obj(base.type(), Deltas.apply(base.data(), data));
  }

  /** Where a delta's base is: an entry of a pack, or a loose object's file. */
  private record BaseAt(PackFile pack, long offset, byte[] loose) {}

  private BaseAt baseAt(PackFile p, PackFile.Entry e, int depth) throws IOException, CannotSay {
    if (depth >= MAX_CHAIN) {
      throw new CannotSay("a delta chain longer than " + MAX_CHAIN);
    }
    if (e.type() == PackFile.OFS_DELTA) {
      return new BaseAt(p, e.baseOffset(), null);
    }
    byte[] loose = looseFile(HexFormat.of().formatHex(e.baseSha()));
    if (loose != null) {
      return new BaseAt(null, 0, loose);
    }
    Located at = locate(e.baseSha());
    if (at == null) {
      throw new CannotSay("a delta's base is not in the files");
    }
    return new BaseAt(at.pack, at.offset, null);
  }

  @Override
  public void close() {
    inflater.end();
    if (packs != null) {
      for (PackFile p : packs) {
        try {
          p.close();
        } catch (IOException e) {
          // Read-only files: nothing is lost.
        }
      }
    }
  }
}
