package dev.knotless.storage.mirror;

import dev.knotless.storage.git.Git;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A mirror's refs read from its files ({@code packed-refs}, then the loose refs under {@code
 * refs/}, which win), as {@code git for-each-ref} lists them, without starting git. A repository
 * whose refs are not kept in such files (a reftable), or a file that does not read as a ref, is
 * asked of git instead. Read under the mirror's refs lock, so no sync of ours writes them
 * meanwhile; git writes each file whole (a lock file renamed over it). Stateless.
 */
final class RefFiles {
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}([0-9a-f]{24})?");

  private RefFiles() {}

  /** Every ref of {@code git}'s repository and its target. */
  static Map<String, String> read(Git git) throws IOException {
    Path dir = git.gitDir();
    if (Files.exists(dir.resolve("reftable"))) {
      return git.refs();
    }
    Map<String, String> refs = new TreeMap<>();
    try {
      for (String line : Files.readAllLines(dir.resolve("packed-refs"), StandardCharsets.UTF_8)) {
        if (line.isEmpty() || line.startsWith("#") || line.startsWith("^")) {
          continue;
        }
        int sp = line.indexOf(' ');
        if (sp < 0 || !SHA.matcher(line.substring(0, sp)).matches()) {
          return git.refs();
        }
        refs.put(line.substring(sp + 1), line.substring(0, sp));
      }
    } catch (NoSuchFileException e) {
      // No packed refs: every ref is loose.
    }
    Path root = dir.resolve("refs");
    if (!Files.isDirectory(root)) {
      return refs;
    }
    List<Path> loose;
    try (Stream<Path> s = Files.walk(root)) {
      loose = s.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".lock")).toList();
    }
    for (Path p : loose) {
      String target;
      try {
        target = Files.readString(p, StandardCharsets.UTF_8).strip();
      } catch (NoSuchFileException e) {
        continue;
      }
      if (!SHA.matcher(target).matches()) {
        // A symbolic ref, or something git would judge better than we would.
        return git.refs();
      }
      refs.put(dir.relativize(p).toString().replace(java.io.File.separatorChar, '/'), target);
    }
    return refs;
  }
}
