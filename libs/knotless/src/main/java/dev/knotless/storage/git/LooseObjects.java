package dev.knotless.storage.git;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.zip.DataFormatException;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.Inflater;

/**
 * A small pack written into a repository as loose objects, in this JVM, where {@code git
 * index-pack} would cost a process start and its set-up: 25 to 50 ms of the path from a push to its
 * check running, for the three or four objects a typical push brings.
 *
 * <p>It takes only the plainest packs and leaves everything else to {@code index-pack}, so that
 * whatever a hostile pack holds meets git's own checks and error messages: a pack over 256 KiB or
 * 1,000 objects, one whose trailing checksum is wrong, whose objects do not inflate to exactly
 * their stated sizes or do not end where the checksum begins, one holding a delta (which needs a
 * base) or an object inflating past 8 MiB in all. An object the repository already has (a file put
 * back as it was, a revert) is compared with the stored one, as git checks for a collision: the
 * same type and bytes, it is not written again; different, or stored where the files cannot show it
 * (see {@link StoredObjects}), the pack goes through {@code index-pack}, which judges the two.
 * Nothing is written unless the whole pack passes. Objects are written as git writes them, each to
 * a temporary file in its directory, then renamed into place, read-only, without an fsync (git's
 * default for loose objects). Stateless.
 */
public final class LooseObjects {
  /** The largest pack taken here: every inline pack (192 KiB at most) fits. */
  public static final int MAX_PACK_BYTES = 256 * 1024;

  private static final int MAX_OBJECTS = 1000;
  private static final long MAX_INFLATED_BYTES = 8L << 20;
  private static final int TRAILER = 20;
  private static final String[] TYPES = {null, "commit", "tree", "blob", "tag"};

  private LooseObjects() {}

  /**
   * Writes {@code pack}'s objects into {@code git}'s repository as loose objects, and gives them;
   * empty, having written nothing, when the pack is not one this takes, so {@code index-pack}
   * should.
   */
  public static Optional<List<Parsed>> write(Git git, byte[] pack) throws IOException {
    List<Parsed> objects = parse(pack);
    if (objects == null) {
      return Optional.empty();
    }
    Set<String> names = new LinkedHashSet<>();
    objects.forEach(o -> names.add(o.name));
    if (names.size() != objects.size()) {
      return Optional.empty(); // an object twice in one pack: index-pack compares the two
    }
    // One writer at a time in this JVM, so that two packs synced at once cannot both find a name
    // free and write it with different contents.
    synchronized (LooseObjects.class) {
      Optional<Set<String>> missing = ObjectFiles.missing(git.gitDir(), git.env(), names);
      if (missing.isEmpty()) {
        return Optional.empty();
      }
      Set<String> missingNames = missing.get();
      if (missingNames.size() != names.size() && !sameAsStored(git, objects, missingNames)) {
        return Optional.empty();
      }
      writeAll(
          git.gitDir().resolve("objects"),
          objects.stream().filter(o -> missingNames.contains(o.name)).toList());
    }
    return Optional.of(List.copyOf(objects));
  }

  /**
   * Whether every object of {@code objects} not among {@code missing} is stored with the same type
   * and content: git's own check against a collision, made here. A stored object the files cannot
   * show, or whose content differs, is left to {@code index-pack} to judge in its own words.
   */
  private static boolean sameAsStored(Git git, List<Parsed> objects, Set<String> missing) {
    Optional<StoredObjects> opened = StoredObjects.open(git);
    if (opened.isEmpty()) {
      return false;
    }
    try (StoredObjects stored = opened.get()) {
      for (Parsed o : objects) {
        if (missing.contains(o.name)) {
          continue;
        }
        Optional<StoredObjects.Obj> had = stored.read(o.name);
        if (had.isEmpty()
            || !had.get().type().equals(o.type)
            || !Arrays.equals(had.get().data(), o.data)) {
          return false;
        }
      }
      return true;
    }
  }

  private static void writeAll(Path dir, List<Parsed> objects) throws IOException {
    for (Parsed o : objects) {
      Path sub = dir.resolve(o.name.substring(0, 2));
      if (!Files.isDirectory(sub)) {
        Files.createDirectories(sub);
      }
      // A name of our own, made read-only as it is created: Files.createTempFile draws its name
      // from a SecureRandom, and a separate chmod is one more system call per object.
      Path tmp = sub.resolve("tmp_obj_" + PID + "_" + TEMP_NAMES.incrementAndGet());
      try {
        try (OutputStream out =
            new DeflaterOutputStream(
                java.nio.channels.Channels.newOutputStream(
                    Files.newByteChannel(
                        tmp,
                        java.util.EnumSet.of(
                            java.nio.file.StandardOpenOption.CREATE_NEW,
                            java.nio.file.StandardOpenOption.WRITE),
                        READ_ONLY)))) {
          out.write(header(o));
          out.write(o.data);
        }
        Files.move(tmp, sub.resolve(o.name.substring(2)), StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(tmp);
      }
    }
  }

  private static final long PID = ProcessHandle.current().pid();
  private static final java.util.concurrent.atomic.AtomicLong TEMP_NAMES =
      new java.util.concurrent.atomic.AtomicLong();
  private static final java.nio.file.attribute.FileAttribute<?> READ_ONLY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r--r--r--"));

  /** One object of a pack: its type ({@code commit}, {@code tree}, ...), content and name. */
  public record Parsed(String type, byte[] data, String name) {}

  /** The pack's objects, or null when it is not one this takes. */
  static List<Parsed> parse(byte[] pack) {
    if (pack.length < 12 + TRAILER || pack.length > MAX_PACK_BYTES) {
      return null;
    }
    if (pack[0] != 'P' || pack[1] != 'A' || pack[2] != 'C' || pack[3] != 'K') {
      return null;
    }
    int version = readInt(pack, 4);
    long count = Integer.toUnsignedLong(readInt(pack, 8));
    if ((version != 2 && version != 3) || count == 0 || count > MAX_OBJECTS) {
      return null;
    }
    int end = pack.length - TRAILER;
    MessageDigest sha = sha1();
    sha.update(pack, 0, end);
    if (!Arrays.equals(sha.digest(), Arrays.copyOfRange(pack, end, pack.length))) {
      return null;
    }
    List<Parsed> out = new ArrayList<>();
    long inflated = 0;
    int pos = 12;
    Inflater inflater = new Inflater();
    try {
      for (long i = 0; i < count; i++) {
        if (pos >= end) {
          return null;
        }
        int c = pack[pos++] & 0xff;
        int type = (c >> 4) & 7;
        long size = c & 0x0f;
        int shift = 4;
        while ((c & 0x80) != 0) {
          if (pos >= end || shift > 28) {
            return null;
          }
          c = pack[pos++] & 0xff;
          size |= (long) (c & 0x7f) << shift;
          shift += 7;
        }
        inflated += size;
        if (type < 1 || type > 4 || inflated > MAX_INFLATED_BYTES) {
          return null; // a delta (6, 7), a reserved type, or too much
        }
        byte[] data = new byte[(int) size];
        inflater.reset();
        inflater.setInput(pack, pos, end - pos);
        if (!inflateExactly(inflater, data)) {
          return null;
        }
        pos += (int) inflater.getBytesRead();
        out.add(new Parsed(TYPES[type], data, name(TYPES[type], data)));
      }
    } catch (DataFormatException e) {
      return null;
    } finally {
      inflater.end();
    }
    return pos == end ? out : null;
  }

  /** Fills {@code data} and finds the zlib stream's end right after it; false otherwise. */
  private static boolean inflateExactly(Inflater inflater, byte[] data) throws DataFormatException {
    int got = 0;
    while (got < data.length) {
      int n = inflater.inflate(data, got, data.length - got);
      if (n == 0 && (inflater.finished() || inflater.needsInput() || inflater.needsDictionary())) {
        return false;
      }
      got += n;
    }
    byte[] more = new byte[1];
    while (!inflater.finished()) {
      int n = inflater.inflate(more);
      if (n != 0 || inflater.needsInput() || inflater.needsDictionary()) {
        return false;
      }
    }
    return true;
  }

  private static byte[] header(Parsed o) {
    return header(o.type, o.data);
  }

  private static byte[] header(String type, byte[] data) {
    return (type + " " + data.length + "\0").getBytes(StandardCharsets.US_ASCII);
  }

  /** The SHA-1 name of an object of {@code type} holding {@code data}, as git names it. */
  static String name(String type, byte[] data) {
    MessageDigest sha = sha1();
    sha.update(header(type, data));
    return HexFormat.of().formatHex(sha.digest(data));
  }

  private static int readInt(byte[] b, int at) {
    return ((b[at] & 0xff) << 24)
        | ((b[at + 1] & 0xff) << 16)
        | ((b[at + 2] & 0xff) << 8)
        | (b[at + 3] & 0xff);
  }

  private static MessageDigest sha1() {
    try {
      return MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-1", e);
    }
  }
}
