package dev.knotless.testing.infra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removes a test's temporary directory tree; what cannot be removed is left for the OS. */
final class Dirs {
  private Dirs() {}

  static void deleteQuietly(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // A leftover temp file under target/ harms no later test; say so rather than fail teardown.
      System.err.println("could not remove " + dir + ": " + e.getMessage());
    }
  }
}
