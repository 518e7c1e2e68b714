package dev.knotless.runner.exec.pod;

import dev.knotless.runtime.pods.PodCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** What the pod cache ITs look at and clear after themselves: overlays mounted under a dir. */
final class CacheMounts {
  private CacheMounts() {}

  /** The mount points under {@code dir}, from this process's mount table. */
  static List<String> under(Path dir) throws IOException {
    String prefix = dir.toAbsolutePath() + "/";
    return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
        .map(l -> l.split(" ")[4])
        .filter(m -> m.startsWith(prefix))
        .toList();
  }

  /** Unmounts what is left under {@code cacheDir}, closes {@code cluster}, removes {@code root}. */
  static void clear(Path cacheDir, PodCluster cluster, Path root) throws Exception {
    for (String m : under(cacheDir)) {
      new ProcessBuilder("umount", "-l", m).inheritIO().start().waitFor();
    }
    cluster.close();
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
