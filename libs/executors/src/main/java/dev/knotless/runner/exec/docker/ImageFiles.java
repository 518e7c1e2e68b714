package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.knotless.runner.exec.cache.CacheStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * An image's own files at a cache path, copied out once per image and path into the cache
 * directory, so that a run's overlay can put them under its base: they show through where the base
 * has nothing. The copy comes from a container made from the image and never started ({@code docker
 * cp}'s archive), and is kept under the image's id, so a tag that moves gets a fresh copy. A path
 * the image lacks gives an empty directory. Thread-safe: two runs making the same copy at once each
 * make their own, and the first to finish keeps it.
 */
final class ImageFiles {

  private ImageFiles() {}

  /** The directory holding {@code image}'s files at {@code path}, made if missing. */
  static Path at(
      DockerClient control,
      CacheStore store,
      DockerExecutor.Live live,
      String runnerDid,
      String image,
      String path)
      throws IOException {
    String id = control.inspectImageCmd(image).exec().getId();
    Path dir = store.imageFiles(id, path);
    if (Files.isDirectory(dir)) {
      return dir;
    }
    Path making = Files.createTempDirectory(dir.getParent(), dir.getFileName() + ".making-");
    String container =
        control
            .createContainerCmd(image)
            .withLabels(Map.of(Labels.RUNNER, runnerDid))
            .withEntrypoint("true")
            .withCmd(List.of())
            .exec()
            .getId();
    // A sweep meanwhile must not take it for a leftover.
    live.add(container);
    try (InputStream tar = control.copyArchiveFromContainerCmd(container, path).exec()) {
      extract(tar, making);
    } catch (NotFoundException missing) {
      // The image has nothing there: the base alone shows.
    } finally {
      try {
        control.removeContainerCmd(container).withForce(true).exec();
      } finally {
        live.remove(container);
      }
    }
    try {
      Files.move(making, dir, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException raced) {
      if (!Files.isDirectory(dir)) {
        throw raced;
      }
      deleteTree(making);
    }
    return dir;
  }

  /**
   * Unpacks docker's archive of a path into {@code into}: its entries are named under the path's
   * last segment, which is dropped. Nothing is written outside {@code into}.
   */
  static void extract(InputStream in, Path into) throws IOException {
    TarArchiveInputStream tar = new TarArchiveInputStream(in);
    TarArchiveEntry e;
    Path root = into.toAbsolutePath().normalize();
    while ((e = tar.getNextEntry()) != null) {
      String name = e.getName();
      int slash = name.indexOf('/');
      String rest = slash < 0 ? "" : name.substring(slash + 1);
      Path to = root.resolve(rest).normalize();
      if (!to.startsWith(root)) {
        throw new IOException("the image's archive names a path outside it: " + name);
      }
      if (e.isDirectory()) {
        Files.createDirectories(to);
      } else if (e.isSymbolicLink()) {
        Files.createDirectories(to.getParent());
        Files.createSymbolicLink(to, Path.of(e.getLinkName()));
      } else if (e.isLink()) {
        String target = e.getLinkName();
        int s = target.indexOf('/');
        Path from = root.resolve(s < 0 ? "" : target.substring(s + 1)).normalize();
        if (!from.startsWith(root)) {
          throw new IOException("the image's archive links outside it: " + target);
        }
        Files.createDirectories(to.getParent());
        Files.createLink(to, from);
      } else if (e.isFile()) {
        Files.createDirectories(to.getParent());
        Files.copy(tar, to, StandardCopyOption.REPLACE_EXISTING);
      } else {
        continue; // devices and fifos are not a cache's business
      }
      if (!e.isSymbolicLink()) {
        Files.setAttribute(to, "unix:uid", (int) e.getLongUserId(), LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(to, "unix:gid", (int) e.getLongGroupId(), LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(to, "unix:mode", e.getMode() & 07777);
        Files.setLastModifiedTime(to, FileTime.from(e.getModTime().toInstant()));
      }
    }
  }

  private static void deleteTree(Path p) throws IOException {
    try (var all = Files.walk(p)) {
      for (Path q : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(q);
      }
    }
  }
}
