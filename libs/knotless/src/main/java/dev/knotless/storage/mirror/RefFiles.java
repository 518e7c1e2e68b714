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

  /** The plainest ref names, the only ones written here; git judges the rest. */
  private static final Pattern PLAIN_NAME =
      Pattern.compile("refs/(heads|tags)(/[A-Za-z0-9_][A-Za-z0-9_.-]*)+");

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

  /**
   * Sets refs {@code updates} (name to target) as loose ref files, each a lock file renamed into
   * place as git writes it, where {@code git update-ref} would cost a process start beside the
   * filing of a push's check. Only the plainest case is done here, and false (nothing written)
   * leaves the rest to git, with its own checks and words: a name outside {@code refs/heads/} and
   * {@code refs/tags/} or with any unusual character or part, a name that is a directory of another
   * ref or of a file, a repository that keeps reflogs or a reftable. {@code have} are the refs as
   * they are, read under the mirror's refs lock, which the caller holds.
   */
  static boolean write(Git git, Map<String, String> updates, Map<String, String> have)
      throws IOException {
    Path dir = git.gitDir();
    if (Files.exists(dir.resolve("reftable")) || Files.exists(dir.resolve("logs"))) {
      return false;
    }
    java.util.Set<String> names = new java.util.TreeSet<>(have.keySet());
    names.addAll(updates.keySet());
    for (Map.Entry<String, String> u : updates.entrySet()) {
      String name = u.getKey();
      if (!PLAIN_NAME.matcher(name).matches()
          || name.contains("..")
          || name.endsWith(".")
          || name.endsWith(".lock")
          || name.contains(".lock/")
          || name.contains("/.")
          || !SHA.matcher(u.getValue()).matches()
          || Files.isDirectory(dir.resolve(name))) {
        return false;
      }
      for (String other : names) {
        if (other.startsWith(name + "/") || name.startsWith(other + "/")) {
          return false; // a ref and a directory of refs by one name: git refuses it in its words
        }
      }
    }
    for (Map.Entry<String, String> u : updates.entrySet()) {
      Path ref = dir.resolve(u.getKey());
      Path lock = ref.resolveSibling(ref.getFileName() + ".lock");
      try {
        Files.createDirectories(ref.getParent());
      } catch (java.nio.file.FileAlreadyExistsException e) {
        return false; // a file where a directory should be
      }
      Files.writeString(
          lock,
          u.getValue() + "\n",
          StandardCharsets.US_ASCII,
          java.nio.file.StandardOpenOption.CREATE_NEW,
          java.nio.file.StandardOpenOption.WRITE);
      Files.move(lock, ref, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
    return true;
  }
}
