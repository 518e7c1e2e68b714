package dev.knotless.runner.secrets;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;

/**
 * Reading and rewriting the secrets file on disk. The file is read again on every run that needs
 * secrets, so an edit takes effect without a restart. Thread-safe for reads; callers serialise
 * rewrites.
 */
public final class SecretsFiles {

  private SecretsFiles() {}

  /**
   * Reads and parses the file.
   *
   * @throws SecretsFileException if it cannot be read or parsed, naming the file and the problem
   */
  public static SecretsFile read(Path file) throws SecretsFileException {
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new SecretsFileException("secrets file " + file + " cannot be read: it does not exist");
    } catch (AccessDeniedException e) {
      throw new SecretsFileException("secrets file " + file + " cannot be read: permission denied");
    } catch (IOException e) {
      String reason = e instanceof FileSystemException fse ? fse.getReason() : null;
      throw new SecretsFileException(
          "secrets file "
              + file
              + " cannot be read: "
              + (reason != null ? reason : e.getClass().getSimpleName()));
    }
    return SecretsFile.parse(content, "secrets file " + file);
  }

  /**
   * Removes the grants to {@code label}, for a repository found deleted, so a repository made later
   * under that name does not inherit them. The file is rewritten atomically (a temporary file
   * beside it, then renamed over it), keeping its permissions; a file without the label is left as
   * it is.
   *
   * @return true if the file held the label and was rewritten
   * @throws SecretsFileException if it cannot be read or parsed
   * @throws IOException if it cannot be rewritten; the old file is then untouched
   */
  public static boolean removeLabel(Path file, String label)
      throws SecretsFileException, IOException {
    SecretsFile current = read(file);
    if (!current.labels().contains(label)) {
      return false;
    }
    byte[] content = current.withoutLabel(label).toBytes();
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp");
    try {
      PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class);
      if (posix != null) {
        Files.setPosixFilePermissions(tmp, posix.readAttributes().permissions());
      }
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.write(java.nio.ByteBuffer.wrap(content));
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("cannot replace " + file + " atomically on this file system", e);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
    return true;
  }
}
