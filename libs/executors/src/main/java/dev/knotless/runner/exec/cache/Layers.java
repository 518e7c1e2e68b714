package dev.knotless.runner.exec.cache;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What promotion does to directories, with no mount and no state: a hard-link clone of a base, an
 * overlayfs upper layer applied over it, and the size of a tree. Applying follows overlayfs's
 * marks: a whiteout (a character device 0/0) deletes, a directory marked opaque ({@code
 * trusted.overlay.opaque=y}) replaces the one under it whole, any other directory merges into the
 * one under it, and anything else replaces. Files are moved out of the upper layer, never copied,
 * so the layer is used up. Nothing here follows a symbolic link. Thread-safe (no state); callers
 * keep one tree to one thread.
 */
final class Layers {

  /** The attribute overlayfs marks an opaque directory with. */
  static final String OPAQUE = "trusted.overlay.opaque";

  private static final int S_IFMT = 0170000;
  private static final int S_IFCHR = 0020000;

  private Layers() {}

  /**
   * Makes {@code into} (which must not exist) a copy of {@code base} in which every regular file is
   * a hard link to the base's: directories are new, with the base's mode, owner and times; links
   * are copied as links. Nothing in {@code base} is changed, and no file's bytes are read.
   */
  static void cloneLinked(Path base, Path into) throws IOException {
    Files.walkFileTree(
        base,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            Files.createDirectory(into.resolve(base.relativize(dir).toString()));
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Path to = into.resolve(base.relativize(file).toString());
            if (attrs.isSymbolicLink()) {
              Files.createSymbolicLink(to, Files.readSymbolicLink(file));
              copyOwner(file, to);
            } else {
              // Regular files, and any fifo or device the run left: a link shares the inode.
              Files.createLink(to, file);
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null) {
              throw e;
            }
            copyMetadata(dir, into.resolve(base.relativize(dir).toString()));
            return FileVisitResult.CONTINUE;
          }
        });
  }

  /**
   * Applies the upper layer {@code upper} over {@code target}, moving what it holds into {@code
   * target} and leaving in {@code target} no whiteout and no opaque mark.
   *
   * @return the bytes of regular files moved in
   */
  static long apply(Path upper, Path target) throws IOException {
    long moved = 0;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(upper)) {
      for (Path from : entries) {
        Path to = target.resolve(from.getFileName().toString());
        if (isWhiteout(from)) {
          deleteTree(to);
          continue;
        }
        boolean dir = Files.isDirectory(from, LinkOption.NOFOLLOW_LINKS);
        if (dir && !isOpaque(from) && Files.isDirectory(to, LinkOption.NOFOLLOW_LINKS)) {
          // A directory that merges: what the run changed in it goes in, the rest stays.
          moved += apply(from, to);
          copyMetadata(from, to);
          continue;
        }
        deleteTree(to);
        moved += dir ? sizeOf(from) : sizeIfFile(from);
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        if (dir) {
          scrub(to);
        }
      }
    }
    return moved;
  }

  /**
   * Removes overlayfs's marks from a tree moved in whole: whiteouts in it hid nothing (the tree
   * replaced what was under it), and an opaque mark would hide what a layer below it holds.
   */
  static void scrub(Path dir) throws IOException {
    Native.removeXattr(dir, OPAQUE);
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        if (isWhiteout(p)) {
          Files.delete(p);
        } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          scrub(p);
        }
      }
    }
  }

  /** True if {@code p} is an overlayfs whiteout: a character device numbered 0/0. */
  static boolean isWhiteout(Path p) throws IOException {
    Map<String, Object> a;
    try {
      a = Files.readAttributes(p, "unix:mode,rdev", LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException gone) {
      return false;
    }
    int mode = (Integer) a.get("mode");
    return (mode & S_IFMT) == S_IFCHR && ((Long) a.get("rdev")) == 0L;
  }

  /** True if the directory {@code p} is marked opaque by overlayfs. */
  static boolean isOpaque(Path p) throws IOException {
    return "y".equals(Native.xattr(p, OPAQUE));
  }

  /** True if {@code dir} holds nothing. */
  static boolean isEmpty(Path dir) throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      return !entries.iterator().hasNext();
    }
  }

  /**
   * The bytes the regular files under {@code root} take, each inode counted once (a clone's links
   * to an older generation count, as the older one may go).
   */
  static long sizeOf(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    Set<Object> seen = new HashSet<>();
    long[] total = {0};
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            if (attrs.isRegularFile() && seen.add(attrs.fileKey())) {
              total[0] += attrs.size();
            }
            return FileVisitResult.CONTINUE;
          }
        });
    return total[0];
  }

  private static long sizeIfFile(Path p) throws IOException {
    BasicFileAttributes a =
        Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    return a.isRegularFile() ? a.size() : 0;
  }

  /** Deletes {@code p} and, if it is a directory, all under it; nothing if it is not there. */
  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(
        p,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null) {
              throw e;
            }
            Files.deleteIfExists(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }

  /** Gives {@code to} the mode, owner and modification time of {@code from}. */
  private static void copyMetadata(Path from, Path to) throws IOException {
    Map<String, Object> a =
        Files.readAttributes(from, "unix:mode,uid,gid,lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(to, "unix:uid", a.get("uid"), LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(to, "unix:gid", a.get("gid"), LinkOption.NOFOLLOW_LINKS);
    // After the owner: a chown clears the set-id bits the mode may carry.
    Files.setAttribute(to, "unix:mode", ((Integer) a.get("mode")) & 07777);
    Files.setLastModifiedTime(to, (FileTime) a.get("lastModifiedTime"));
  }

  private static void copyOwner(Path from, Path to) throws IOException {
    Map<String, Object> a = Files.readAttributes(from, "unix:uid,gid", LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(to, "unix:uid", a.get("uid"), LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(to, "unix:gid", a.get("gid"), LinkOption.NOFOLLOW_LINKS);
  }
}
