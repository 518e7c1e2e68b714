package dev.knotless.runner.exec.pod;

import dev.knotless.runner.exec.Quoting;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The little of tar the pod executor needs: a directory tree written as a ustar archive (GNU long
 * names past 100 bytes, which GNU tar and busybox read), for the checkout on its way into a pod;
 * and archives a pod wrote read back, its outputs and a write-back's checkout. Links are stored as
 * links, never followed. Stateless.
 */
final class Tar {

  static final int BLOCK = 512;

  private Tar() {}

  /** Writes the tree under {@code root} (not {@code root} itself) to {@code file}. */
  static void write(Path root, Path file) throws IOException {
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file));
        Stream<Path> walk = Files.walk(root)) {
      List<Path> all = walk.sorted(Comparator.naturalOrder()).toList();
      for (Path p : all) {
        if (p.equals(root)) {
          continue;
        }
        String name = root.relativize(p).toString();
        if (Files.isSymbolicLink(p)) {
          entry(out, name, '2', 0777, 0, Files.readSymbolicLink(p).toString());
        } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          entry(out, name + "/", '5', 0755, 0, "");
        } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          long size = Files.size(p);
          boolean exec =
              Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS)
                  .contains(PosixFilePermission.OWNER_EXECUTE);
          entry(out, name, '0', exec ? 0755 : 0644, size, "");
          try (InputStream in = Files.newInputStream(p)) {
            if (in.transferTo(out) != size) {
              throw new IOException(p + " changed while it was packed");
            }
          }
          pad(out, size);
        }
      }
      out.write(new byte[2 * BLOCK]);
    }
  }

  private static void entry(
      OutputStream out, String name, char type, int mode, long size, String link)
      throws IOException {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    if (n.length > 100) {
      longName(out, 'L', n);
    }
    byte[] l = link.getBytes(StandardCharsets.UTF_8);
    if (l.length > 100) {
      longName(out, 'K', l);
    }
    out.write(header(n, type, mode, size, l));
  }

  private static void longName(OutputStream out, char type, byte[] name) throws IOException {
    byte[] data = new byte[name.length + 1];
    System.arraycopy(name, 0, data, 0, name.length);
    out.write(
        header(
            "././@LongLink".getBytes(StandardCharsets.US_ASCII),
            type,
            0,
            data.length,
            new byte[0]));
    out.write(data);
    pad(out, data.length);
  }

  private static byte[] header(byte[] name, char type, int mode, long size, byte[] link) {
    byte[] h = new byte[BLOCK];
    System.arraycopy(name, 0, h, 0, Math.min(100, name.length));
    octal(h, 100, 8, mode);
    octal(h, 108, 8, 0);
    octal(h, 116, 8, 0);
    octal(h, 124, 12, size);
    octal(h, 136, 12, 0);
    h[156] = (byte) type;
    System.arraycopy(link, 0, h, 157, Math.min(100, link.length));
    System.arraycopy("ustar\0".getBytes(StandardCharsets.US_ASCII), 0, h, 257, 6);
    h[263] = '0';
    h[264] = '0';
    for (int i = 148; i < 156; i++) {
      h[i] = ' ';
    }
    long sum = 0;
    for (byte b : h) {
      sum += b & 0xff;
    }
    octal(h, 148, 7, sum);
    return h;
  }

  private static void octal(byte[] h, int at, int width, long value) {
    String s = Long.toOctalString(value);
    if (s.length() > width - 1) {
      throw new IllegalArgumentException("too large for tar: " + value);
    }
    s = "0".repeat(width - 1 - s.length()) + s;
    System.arraycopy(s.getBytes(StandardCharsets.US_ASCII), 0, h, at, width - 1);
  }

  private static void pad(OutputStream out, long size) throws IOException {
    int rest = (int) (size % BLOCK);
    if (rest != 0) {
      out.write(new byte[BLOCK - rest]);
    }
  }

  /**
   * Reads the archive on {@code in}, which a run's pod wrote and so is hostile, into {@code dir}:
   * directories, regular files (their owner's execute bit kept) and symbolic links, the links made
   * as links and never followed. Every entry is refused that would leave {@code dir} (an absolute
   * name, a {@code ..}, a parent that is a link), as is anything under the top-level {@code .git},
   * which is the runner's; hard links, devices and fifos are passed over. At most {@code maxBytes}
   * of file data in all.
   *
   * @throws IOException naming the entry when the archive breaks these rules or the limit
   */
  static void extractTree(InputStream in, Path dir, long maxBytes) throws IOException {
    extractTree(in, dir, maxBytes, "checkout", true);
  }

  /**
   * As {@link #extractTree(InputStream, Path, long)}, the messages naming the archive {@code what};
   * with {@code skipGit} false a top-level {@code .git} is read as any other entry (a cache's).
   */
  static void extractTree(InputStream in, Path dir, long maxBytes, String what, boolean skipGit)
      throws IOException {
    byte[] h = new byte[BLOCK];
    String longName = null;
    String longLink = null;
    long total = 0;
    while (readBlock(in, h)) {
      if (allZero(h)) {
        return;
      }
      long size = parseSize(h);
      char type = (char) h[156];
      if (type == 'L' || type == 'K') {
        String v = cString(readData(in, size), 0, (int) size);
        if (type == 'L') {
          longName = v;
        } else {
          longLink = v;
        }
        continue;
      }
      String name = longName != null ? longName : cString(h, 0, 100);
      String link = longLink != null ? longLink : cString(h, 157, 100);
      longName = null;
      longLink = null;
      String rel = relative(name, what);
      if (skipGit && rel != null && (rel.equals(".git") || rel.startsWith(".git/"))) {
        // The runner's own: never the pod's to change.
        rel = null;
      }
      boolean data = type == '0' || type == '\0' || type == '7';
      if (rel == null) {
        skip(in, data ? (size + BLOCK - 1) / BLOCK * BLOCK : 0);
        continue;
      }
      Path target = inside(dir, rel, what);
      if (type == '5') {
        Files.createDirectories(target);
      } else if (data) {
        total += size;
        if (total > maxBytes) {
          throw new IOException(
              "the pod's " + what + " is over " + maxBytes + " bytes at " + quote(rel));
        }
        Files.createDirectories(target.getParent());
        Files.deleteIfExists(target);
        try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW)) {
          copy(in, out, size);
        }
        skip(in, (BLOCK - size % BLOCK) % BLOCK);
        if ((parseOctal(h, 100, 8) & 0100) != 0) {
          var perms = Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS);
          perms.add(PosixFilePermission.OWNER_EXECUTE);
          Files.setPosixFilePermissions(target, perms);
        }
      } else if (type == '2') {
        Files.createDirectories(target.getParent());
        Files.deleteIfExists(target);
        Files.createSymbolicLink(target, Path.of(link));
      } else {
        skip(in, (size + BLOCK - 1) / BLOCK * BLOCK);
      }
    }
  }

  /**
   * An entry's name relative to the archive's root, null for the root itself.
   *
   * @param what what the archive holds, for the message
   * @throws IOException when the name is absolute or has a {@code ..} or empty part
   */
  static String relative(String name, String what) throws IOException {
    String n = name;
    while (n.startsWith("./")) {
      n = n.substring(2);
    }
    while (n.endsWith("/")) {
      n = n.substring(0, n.length() - 1);
    }
    if (n.isEmpty() || n.equals(".")) {
      return null;
    }
    if (n.startsWith("/")) {
      throw new IOException("the pod's " + what + " holds an absolute name: " + quote(name));
    }
    for (String part : n.split("/", -1)) {
      if (part.equals("..") || part.isEmpty()) {
        throw new IOException("the pod's " + what + " holds a name leaving it: " + quote(name));
      }
    }
    return n;
  }

  /** {@code rel} under {@code dir}, refused when a directory on the way is a link. */
  static Path inside(Path dir, String rel, String what) throws IOException {
    Path p = dir;
    String[] parts = rel.split("/");
    for (int i = 0; i < parts.length - 1; i++) {
      p = p.resolve(parts[i]);
      if (Files.isSymbolicLink(p)) {
        throw new IOException("the pod's " + what + " writes through a link: " + quote(rel));
      }
    }
    return p.resolve(parts[parts.length - 1]);
  }

  static boolean readBlock(InputStream in, byte[] h) throws IOException {
    int n = in.readNBytes(h, 0, BLOCK);
    if (n == 0) {
      return false;
    }
    if (n < BLOCK) {
      throw new EOFException("tar archive cut off in a header");
    }
    return true;
  }

  static byte[] readData(InputStream in, long size) throws IOException {
    if (size > 1 << 16) {
      throw new IOException("tar long name of " + size + " bytes");
    }
    byte[] data = in.readNBytes((int) size);
    if (data.length < size) {
      throw new EOFException("tar archive cut off in a long name");
    }
    skip(in, (BLOCK - size % BLOCK) % BLOCK);
    return data;
  }

  static void copy(InputStream in, OutputStream out, long size) throws IOException {
    byte[] buf = new byte[64 * 1024];
    long left = size;
    while (left > 0) {
      int n = in.read(buf, 0, (int) Math.min(buf.length, left));
      if (n < 0) {
        throw new EOFException("tar archive cut off in a file");
      }
      out.write(buf, 0, n);
      left -= n;
    }
  }

  static void skip(InputStream in, long n) throws IOException {
    if (n > 0) {
      in.skipNBytes(n);
    }
  }

  static boolean allZero(byte[] h) {
    for (byte b : h) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * An entry's size: octal, or GNU tar's base-256 (the field's first byte's high bit set) for a
   * file of 8 GiB or more.
   */
  static long parseSize(byte[] h) throws IOException {
    if ((h[124] & 0x80) == 0) {
      return parseOctal(h, 124, 12);
    }
    long v = 0;
    for (int i = 125; i < 136; i++) {
      if ((v >>> 55) != 0) {
        throw new IOException("tar entry too large");
      }
      v = (v << 8) | (h[i] & 0xff);
    }
    return v;
  }

  private static long parseOctal(byte[] h, int at, int width) {
    long v = 0;
    for (int i = at; i < at + width; i++) {
      byte b = h[i];
      if (b >= '0' && b <= '7') {
        v = v * 8 + (b - '0');
      } else if (v > 0 && (b == 0 || b == ' ')) {
        break;
      }
    }
    return v;
  }

  static String quote(String name) {
    return Quoting.quote(name);
  }

  static String cString(byte[] b, int at, int max) {
    int end = at;
    while (end < at + max && end < b.length && b[end] != 0) {
      end++;
    }
    return new String(b, at, end - at, StandardCharsets.UTF_8);
  }
}
