package dev.knotless.runner.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One run's temporary directory under {@code --work}: {@code checkout/}, the {@code log} and {@code
 * outputs/}. It is made private to the runner's user (0700), since the log and the checkout are the
 * repository's. Not thread-safe: the executor's thread owns it.
 */
final class RunDirectory {

  private final Path root;

  private RunDirectory(Path root) {
    this.root = root;
  }

  /** Makes a new directory under {@code workRoot}, and the work root itself if missing. */
  static RunDirectory create(Path workRoot) throws IOException {
    Files.createDirectories(workRoot);
    // createTempDirectory makes it 0700 on POSIX file systems.
    Path root = Files.createTempDirectory(workRoot, "run-");
    Files.createDirectory(root.resolve("outputs"));
    return new RunDirectory(root);
  }

  Path root() {
    return root;
  }

  Path checkout() {
    return root.resolve("checkout");
  }

  Path log() {
    return root.resolve("log");
  }

  Path outputs() {
    return root.resolve("outputs");
  }

  /**
   * The images under {@code outputs/}, sorted by path, within {@link OutputFiles}' limits; files of
   * other kinds are never read. Symbolic links are never followed, so a step cannot make the runner
   * upload a file outside the run (its secrets file, say). An image whose name is not a plain file
   * name ({@link OutputFiles#isPlainName}) is refused, and one whose bytes hold a secret, as {@code
   * filter} finds it, is held back.
   *
   * @param leftOut receives a line for each image left out, naming it, quoted, and why
   */
  List<RunResult.OutputFile> readOutputs(
      OutputFilter filter, java.util.function.Consumer<String> leftOut) throws IOException {
    Path dir = outputs();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    List<Path> files;
    try (Stream<Path> walk = Files.walk(dir)) {
      files =
          walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
              .sorted(Comparator.comparing(p -> dir.relativize(p).toString()))
              .toList();
    }
    List<RunResult.OutputFile> out = new ArrayList<>();
    long total = 0;
    for (Path file : files) {
      String name =
          dir.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
      if (!OutputFiles.isImage(name)) {
        continue;
      }
      String shown = Quoting.quote(name);
      if (!OutputFiles.isPlainName(name)) {
        leftOut.accept("output " + shown + " refused: not a plain file name");
        continue;
      }
      long size = Files.size(file);
      byte[] bytes = null;
      if (OutputFiles.withinFileLimit(size)) {
        bytes = Files.readAllBytes(file);
        if (filter.holdsSecret(bytes)) {
          // The note names the file, never what it holds.
          leftOut.accept("output " + shown + " held back: it holds a secret");
          continue;
        }
      }
      if (bytes == null) {
        leftOut.accept(
            "output " + shown + " left out: over " + (OutputFiles.MAX_FILE_BYTES >> 20) + " MiB");
      } else if (out.size() == OutputFiles.MAX_FILES) {
        leftOut.accept(
            "output "
                + shown
                + " left out: a run keeps at most "
                + OutputFiles.MAX_FILES
                + " outputs");
      } else if (total + size > OutputFiles.MAX_TOTAL_BYTES) {
        leftOut.accept(
            "output "
                + shown
                + " left out: a run's outputs take at most "
                + (OutputFiles.MAX_TOTAL_BYTES >> 20)
                + " MiB together");
      } else {
        total += bytes.length;
        out.add(new RunResult.OutputFile(name, bytes));
      }
    }
    return out;
  }

  /**
   * Removes the directory and all in it, never following a link out of it. A directory a step made
   * read-only is made writable first, so nothing a step did keeps it from going.
   */
  void delete() throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
            if (!perms.contains(PosixFilePermission.OWNER_WRITE)
                || !perms.contains(PosixFilePermission.OWNER_EXECUTE)) {
              perms.add(PosixFilePermission.OWNER_WRITE);
              perms.add(PosixFilePermission.OWNER_EXECUTE);
              perms.add(PosixFilePermission.OWNER_READ);
              Files.setPosixFilePermissions(dir, perms);
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            deleteIfThere(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null) {
              throw e;
            }
            deleteIfThere(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }

  private static void deleteIfThere(Path path) throws IOException {
    try {
      Files.delete(path);
    } catch (NoSuchFileException gone) {
      // A step's straggler removed it first; what matters is that it is gone.
    }
  }

  /** Reads the log whole; called after it is closed and before the directory goes. */
  byte[] readLog() {
    try {
      return Files.readAllBytes(log());
    } catch (IOException e) {
      throw new UncheckedIOException("could not read the run's log " + log(), e);
    }
  }
}
