package dev.knotless.storage.git;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which objects a repository lacks, read from its object files (loose objects and the version-2
 * pack indexes) without starting git: {@code cat-file --batch-check} costs a process start and its
 * set-up, 12 to 35 ms on the path from a push to its check running, where this costs well under a
 * millisecond for the few objects a push asks about.
 *
 * <p>It answers only where the files say all there is: a repository with alternates or another
 * object directory (from the environment or, for a worktree, its common directory), an object name
 * that is not SHA-1, or an index it does not read as version 2 gets no answer, and the caller asks
 * git. An object found is there. One not found could, at worst, be in a pack written while the
 * directory was listed: the caller then fetches it again, which costs time, not correctness.
 * Stateless.
 */
final class ObjectFiles {
  private static final int SHA_BYTES = PackIndex.SHA_BYTES;

  private ObjectFiles() {}

  /**
   * The objects of {@code shas} that the repository at {@code gitDir} lacks, or empty when its
   * files cannot say ({@code env} is what git would run with, besides this JVM's own).
   */
  static Optional<Set<String>> missing(
      Path gitDir, Map<String, String> env, Collection<String> shas) {
    Path objects = gitDir.resolve("objects");
    if (!readable(gitDir, env)) {
      return Optional.empty();
    }
    for (String sha : shas) {
      if (!isSha1(sha)) {
        return Optional.empty();
      }
    }
    Set<String> missing = new HashSet<>();
    for (String sha : shas) {
      if (!Files.exists(objects.resolve(sha.substring(0, 2)).resolve(sha.substring(2)))) {
        missing.add(sha);
      }
    }
    if (missing.isEmpty()) {
      return Optional.of(missing);
    }
    try {
      for (Path idx : indexes(objects.resolve("pack"))) {
        if (!removeFound(idx, missing)) {
          return Optional.empty();
        }
        if (missing.isEmpty()) {
          break;
        }
      }
    } catch (IOException e) {
      // A pack removed while it was read (a repack), or one that cannot be read: git says.
      return Optional.empty();
    }
    return Optional.of(missing);
  }

  /**
   * Whether the repository's own object files hold all its objects: no alternates, no other object
   * directory, not a worktree's. (Its names being SHA-1 is for the caller to check.)
   */
  static boolean readable(Path gitDir, Map<String, String> env) {
    Path objects = gitDir.resolve("objects");
    return !elsewhere(env)
        && !elsewhere(System.getenv())
        && !Files.exists(gitDir.resolve("commondir"))
        && Files.isDirectory(objects)
        && !Files.exists(objects.resolve("info").resolve("alternates"));
  }

  private static boolean elsewhere(Map<String, String> env) {
    return env.containsKey("GIT_OBJECT_DIRECTORY")
        || env.containsKey("GIT_ALTERNATE_OBJECT_DIRECTORIES");
  }

  static boolean isSha1(String sha) {
    if (sha.length() != 2 * SHA_BYTES) {
      return false;
    }
    for (int i = 0; i < sha.length(); i++) {
      char c = sha.charAt(i);
      if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  static List<Path> indexes(Path packDir) throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(packDir)) {
      return out;
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(packDir, "pack-*.idx")) {
      s.forEach(out::add);
    }
    return out;
  }

  /**
   * Takes out of {@code missing} each object the index lists; false when it is not a version-2
   * index of SHA-1 names, so the answer must come from git.
   */
  private static boolean removeFound(Path idx, Set<String> missing) throws IOException {
    try (PackIndex index = PackIndex.open(idx)) {
      if (index == null) {
        return false;
      }
      HexFormat hex = HexFormat.of();
      for (String sha : List.copyOf(missing)) {
        if (index.find(hex.parseHex(sha)) >= 0) {
          missing.remove(sha);
        }
      }
      return true;
    }
  }
}
