package dev.knotless.testing.kubelet;

import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * The test kubelet's check of a hostPath volume before it binds it, as a kubelet checks the
 * volume's {@code type}: the node is this machine, so the path is looked at here. Stateless.
 */
final class HostPaths {

  private HostPaths() {}

  /** Why {@code source} cannot be mounted, or null when it can. */
  static String refused(HostPathVolumeSource source) {
    String path = source.getPath();
    if (path == null || !path.startsWith("/")) {
      return "hostPath " + path + ": not an absolute path";
    }
    String type = source.getType() == null ? "" : source.getType();
    Path p = Path.of(path);
    return switch (type) {
      case "" -> null;
      case "Directory" ->
          Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
              ? null
              : "hostPath type check failed: " + path + " is not a directory";
      case "DirectoryOrCreate" -> create(p);
      default ->
          "hostPath type " + type + ": the test kubelet takes Directory or DirectoryOrCreate";
    };
  }

  private static String create(Path p) {
    try {
      Files.createDirectories(p);
      return null;
    } catch (java.io.IOException e) {
      return "hostPath " + p + " could not be made: " + e.getMessage();
    }
  }
}
