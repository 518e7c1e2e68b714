package dev.knotless.atproto.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Reads and rewrites small JSON object files shared by several processes.
 *
 * <p>A write goes to a temporary file in the same directory, is flushed, and is renamed over the
 * old file, so a reader sees the old file or the new one, never part of either. An update (read,
 * change, write) holds the operating system's lock on {@code <file>.lock} and a lock in this JVM,
 * so two processes updating one file at once both keep their entries. A file that is missing or
 * does not parse reads as an empty object. Thread-safe.
 */
final class JsonFiles {
  private static final ConcurrentHashMap<Path, ReentrantLock> LOCKS = new ConcurrentHashMap<>();
  private static final java.util.concurrent.atomic.AtomicLong TEMP =
      new java.util.concurrent.atomic.AtomicLong();

  private JsonFiles() {}

  /** The file's object, or an empty one if it is missing or unreadable. */
  static ObjectNode read(Path file) {
    try {
      JsonNode node = Json.read(Files.readAllBytes(file));
      return node instanceof ObjectNode object ? object : Json.object();
    } catch (IOException e) {
      // Missing, half-written by a crashed older client, or not ours: the cache starts over.
      return Json.object();
    }
  }

  /**
   * Applies {@code change} to the file's current object and writes the result, under the file's
   * lock.
   *
   * @param ownerOnly write the file readable by its owner alone (for secrets)
   */
  static void update(Path file, boolean ownerOnly, Consumer<ObjectNode> change) {
    Path absolute = file.toAbsolutePath();
    try {
      locked(
          absolute,
          ownerOnly,
          () -> {
            ObjectNode current = read(absolute);
            change.accept(current);
            write(absolute, current, ownerOnly);
            return null;
          });
    } catch (IOException e) {
      throw new UncheckedIOException("could not write " + absolute, e);
    }
  }

  /** Work done under a file's lock; it may update the file itself. */
  interface Locked<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code work} holding the file's locks, this JVM's and the operating system's on {@code
   * <file>.lock}: no other process or thread updates the file meanwhile. Updates {@code work} makes
   * itself take the locks again without waiting.
   */
  static <T> T locked(Path file, boolean ownerOnly, Locked<T> work) throws IOException {
    Path absolute = file.toAbsolutePath();
    ReentrantLock inProcess = LOCKS.computeIfAbsent(absolute, p -> new ReentrantLock());
    inProcess.lock();
    try {
      if (inProcess.getHoldCount() > 1) {
        return work.run(); // this thread holds the file's lock already
      }
      Path dir = absolute.getParent();
      createDirectories(dir, ownerOnly);
      Path lockFile = dir.resolve(absolute.getFileName() + ".lock");
      try (FileChannel channel =
              FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = channel.lock()) {
        return work.run();
      }
    } finally {
      inProcess.unlock();
    }
  }

  private static void write(Path file, ObjectNode value, boolean ownerOnly) throws IOException {
    Path dir = file.getParent();
    Path tmp = tempFile(dir, file, ownerOnly && supportsPosix(dir));
    try {
      try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ByteBuffer bytes = ByteBuffer.wrap(Json.write(value));
        while (bytes.hasRemaining()) {
          out.write(bytes);
        }
        if (ownerOnly) {
          // A lost session means logging in again; a lost cache entry only a lookup, so only
          // sessions pay for a flush to disk.
          out.force(true);
        }
      }
      if (!ownerOnly && supportsPosix(dir)) {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the cache directory " + dir + " does not support atomic renames", e);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * A new empty file beside {@code file}, named by this process and a counter. Not {@link
   * Files#createTempFile}, which names it from a {@link java.security.SecureRandom} whose set-up
   * costs a short command 5 to 15 ms. Each name is created exclusively, never through a link, so a
   * name already taken (by a crashed run, or anybody else) is passed over.
   */
  private static Path tempFile(Path dir, Path file, boolean ownerOnly) throws IOException {
    String base = "." + file.getFileName() + "." + ProcessHandle.current().pid() + ".";
    while (true) {
      Path tmp = dir.resolve(base + TEMP.incrementAndGet() + ".tmp");
      try {
        return ownerOnly ? Files.createFile(tmp, ownerOnlyFile()) : Files.createFile(tmp);
      } catch (FileAlreadyExistsException e) {
        // Taken: the next number.
      }
    }
  }

  private static void createDirectories(Path dir, boolean ownerOnly) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    if (ownerOnly && supportsPosix(dir.getRoot())) {
      try {
        Files.createDirectories(
            dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (FileAlreadyExistsException e) {
        // Made by another process meanwhile; fine.
      }
      return;
    }
    Files.createDirectories(dir);
  }

  private static FileAttribute<Set<PosixFilePermission>> ownerOnlyFile() {
    return PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
  }

  private static boolean supportsPosix(Path path) {
    return path.getFileSystem().supportedFileAttributeViews().contains("posix");
  }
}
