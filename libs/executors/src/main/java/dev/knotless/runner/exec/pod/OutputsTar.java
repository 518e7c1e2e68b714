package dev.knotless.runner.exec.pod;

import dev.knotless.runner.exec.OutputFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A run's outputs directory read back from the tar its pod wrote, so that the run's outputs are
 * then read from the runner's own copy under the same rules as every executor's ({@link
 * OutputFiles}). Only what those rules can look at is copied: names, sizes, and the bytes of files
 * small enough to be read. Stateless.
 */
final class OutputsTar {

  private static final String WHAT = "outputs directory";

  private OutputsTar() {}

  /**
   * Reads the archive on {@code in}, a run's outputs directory as its pod packed it (and so
   * hostile), into {@code dir} as that directory was: every regular file at any depth under its
   * name, and a hard link as a copy of the file it names. A file over {@link
   * OutputFiles#withinFileLimit} comes back as its size alone, a sparse file, since no rule reads
   * its bytes. Symbolic links, directories, devices and fifos are passed over, as the outputs'
   * reader passes over all but regular files. At most {@code maxBytes} of file data in all.
   *
   * @throws IOException naming the entry when a name would leave {@code dir}, cannot be stored
   *     here, or the data is over {@code maxBytes}
   */
  static void extract(InputStream in, Path dir, long maxBytes) throws IOException {
    try {
      entries(in, dir, maxBytes);
    } catch (InvalidPathException e) {
      throw new IOException(
          "the pod's outputs hold a name this runner cannot store: " + Tar.quote(e.getInput()), e);
    }
  }

  private static void entries(InputStream in, Path dir, long maxBytes) throws IOException {
    byte[] h = new byte[Tar.BLOCK];
    String longName = null;
    String longLink = null;
    long total = 0;
    while (Tar.readBlock(in, h)) {
      if (Tar.allZero(h)) {
        return;
      }
      long size = Tar.parseSize(h);
      char type = (char) h[156];
      if (type == 'L' || type == 'K') {
        String v = Tar.cString(Tar.readData(in, size), 0, (int) size);
        if (type == 'L') {
          longName = v;
        } else {
          longLink = v;
        }
        continue;
      }
      String name = longName != null ? longName : Tar.cString(h, 0, 100);
      String link = longLink != null ? longLink : Tar.cString(h, 157, 100);
      longName = null;
      longLink = null;
      boolean data = type == '0' || type == '\0' || type == '7';
      String rel = Tar.relative(name, WHAT);
      if (data && rel != null) {
        Path target = fresh(dir, rel);
        if (OutputFiles.withinFileLimit(size)) {
          total = counted(total, size, maxBytes, rel);
          try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW)) {
            Tar.copy(in, out, size);
          }
          Tar.skip(in, (Tar.BLOCK - size % Tar.BLOCK) % Tar.BLOCK);
        } else {
          sized(target, size);
          Tar.skip(in, padded(size));
        }
      } else if (type == '1' && rel != null) {
        // tar stores a second name of one file as a link to the first; on disk both are files.
        String of = Tar.relative(link, WHAT);
        Path source = of == null || of.equals(rel) ? null : dir.resolve(of);
        if (source != null && Files.isRegularFile(source, LinkOption.NOFOLLOW_LINKS)) {
          long length = Files.size(source);
          Path target = fresh(dir, rel);
          if (OutputFiles.withinFileLimit(length)) {
            total = counted(total, length, maxBytes, rel);
            Files.copy(source, target);
          } else {
            sized(target, length);
          }
        }
      } else if (type != '1' && type != '2' && type != '5') {
        // Data of a file passed over, or of an entry this reader does not take (a pax header).
        Tar.skip(in, padded(size));
      }
    }
  }

  private static long padded(long size) {
    return (size + Tar.BLOCK - 1) / Tar.BLOCK * Tar.BLOCK;
  }

  /** {@code rel} under {@code dir}, its directories made and anything already there gone. */
  private static Path fresh(Path dir, String rel) throws IOException {
    Path target = Tar.inside(dir, rel, WHAT);
    Files.createDirectories(target.getParent());
    Files.deleteIfExists(target);
    return target;
  }

  private static long counted(long total, long size, long maxBytes, String rel) throws IOException {
    if (total + size > maxBytes) {
      throw new IOException(
          "the pod's outputs are over " + maxBytes + " bytes at " + Tar.quote(rel));
    }
    return total + size;
  }

  /** A file of {@code size} bytes that takes no room: its bytes are never read. */
  private static void sized(Path target, long size) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(target.toFile(), "rw")) {
      f.setLength(size);
    }
  }
}
