package dev.knotless.runner.exec.pod;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashSet;
import java.util.Set;

/**
 * Makes one directory what another holds, writing only what differs: how what a pod left at a cache
 * path reaches the run's overlay on the runner's side. The target is the overlay's merged view, so
 * each write lands in the run's upper layer and each removal becomes a whiteout there, just as if
 * the run's steps had written through the overlay themselves; promotion then reads that layer as it
 * reads a container's. A file whose bytes and owner's execute bit are unchanged is not touched, so
 * it stays in the base and is not copied up. Links are compared and copied as links, never
 * followed. Stateless.
 */
final class TreeSync {

  private static final LinkOption NO_FOLLOW = LinkOption.NOFOLLOW_LINKS;

  private TreeSync() {}

  /**
   * Makes {@code target} hold what {@code source} holds.
   *
   * @return the entries written or removed in {@code target}
   */
  static int sync(Path source, Path target) throws IOException {
    int changed = 0;
    Set<String> seen = new HashSet<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(source)) {
      for (Path from : entries) {
        String name = from.getFileName().toString();
        seen.add(name);
        Path to = target.resolve(name);
        Kind kind = Kind.of(from);
        Kind there = Kind.of(to);
        if (kind == Kind.DIR && there == Kind.DIR) {
          changed += sync(from, to);
          continue;
        }
        if (kind == there && same(kind, from, to)) {
          continue;
        }
        if (there != Kind.NONE) {
          deleteTree(to);
        }
        copyTree(from, to);
        changed++;
      }
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(target)) {
      for (Path to : entries) {
        if (!seen.contains(to.getFileName().toString())) {
          deleteTree(to);
          changed++;
        }
      }
    }
    return changed;
  }

  private enum Kind {
    NONE,
    DIR,
    FILE,
    LINK,
    OTHER;

    static Kind of(Path p) {
      if (Files.isSymbolicLink(p)) {
        return LINK;
      }
      if (Files.isDirectory(p, NO_FOLLOW)) {
        return DIR;
      }
      if (Files.isRegularFile(p, NO_FOLLOW)) {
        return FILE;
      }
      return Files.exists(p, NO_FOLLOW) ? OTHER : NONE;
    }
  }

  private static boolean same(Kind kind, Path a, Path b) throws IOException {
    switch (kind) {
      case LINK:
        return Files.readSymbolicLink(a).equals(Files.readSymbolicLink(b));
      case FILE:
        return Files.size(a) == Files.size(b) && executable(a) == executable(b) && sameBytes(a, b);
      default:
        return false;
    }
  }

  private static boolean executable(Path p) throws IOException {
    return Files.getPosixFilePermissions(p, NO_FOLLOW).contains(PosixFilePermission.OWNER_EXECUTE);
  }

  private static boolean sameBytes(Path a, Path b) throws IOException {
    try (InputStream x = Files.newInputStream(a);
        InputStream y = Files.newInputStream(b)) {
      byte[] bx = new byte[64 * 1024];
      byte[] by = new byte[64 * 1024];
      while (true) {
        int nx = x.readNBytes(bx, 0, bx.length);
        int ny = y.readNBytes(by, 0, by.length);
        if (nx != ny || !java.util.Arrays.equals(bx, 0, nx, by, 0, ny)) {
          return false;
        }
        if (nx < bx.length) {
          return true;
        }
      }
    }
  }

  /** Copies {@code from} to {@code to}, which is not there: a tree, a file or a link. */
  private static void copyTree(Path from, Path to) throws IOException {
    Kind kind = Kind.of(from);
    if (kind == Kind.DIR) {
      Files.createDirectory(to);
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(from)) {
        for (Path p : entries) {
          copyTree(p, to.resolve(p.getFileName().toString()));
        }
      }
    } else if (kind == Kind.LINK) {
      Files.createSymbolicLink(to, Files.readSymbolicLink(from));
    } else if (kind == Kind.FILE) {
      Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES, NO_FOLLOW);
    }
  }

  private static void deleteTree(Path p) throws IOException {
    if (Files.isDirectory(p, NO_FOLLOW)) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(p)) {
        for (Path c : entries) {
          deleteTree(c);
        }
      }
    }
    Files.deleteIfExists(p);
  }
}
