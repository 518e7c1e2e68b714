package dev.knotless.storage.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The object files' answer to "which of these are missing" is git's own, or no answer. */
class ObjectFilesIT {

  @Test
  void answersAsGitDoesForLooseAndPackedObjects(@TempDir Path tmp) throws Exception {
    Git git = bare(tmp.resolve("r.git"));
    List<String> packed = blobs(git, "packed", 300);
    git.run(null, "repack", "-q", "-a", "-d");
    List<String> inSecondPack = blobs(git, "second", 40);
    git.run(null, "repack", "-q", "-d");
    List<String> loose = blobs(git, "loose", 5);
    assertTrue(Files.exists(objectFile(git, loose.get(0))), "still loose");
    assertEquals(2, packs(git), "two packs to look in");

    List<String> asked = new ArrayList<>();
    asked.addAll(packed);
    asked.addAll(inSecondPack);
    asked.addAll(loose);
    Set<String> absent = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      // Names no object has, spread over the fan-out, the first and last bytes among them.
      String name = String.format("%02x", i * 5) + "0".repeat(36) + String.format("%02x", i);
      absent.add(name);
    }
    absent.add("0".repeat(40));
    absent.add("f".repeat(40));
    asked.addAll(absent);

    Optional<Set<String>> fromFiles = ObjectFiles.missing(git.gitDir(), Map.of(), asked);
    assertEquals(Optional.of(absent), fromFiles);
    assertEquals(absent, gitsAnswer(git, asked), "git agrees");
  }

  @Test
  void aRepositoryWhoseObjectsMayBeElsewhereGetsNoAnswer(@TempDir Path tmp) throws Exception {
    Git other = bare(tmp.resolve("other.git"));
    String there = blobs(other, "there", 1).get(0);
    Git git = bare(tmp.resolve("r.git"));
    Files.writeString(
        git.gitDir().resolve("objects/info/alternates"),
        other.gitDir().resolve("objects") + "\n",
        StandardCharsets.UTF_8);
    assertEquals(Optional.empty(), ObjectFiles.missing(git.gitDir(), Map.of(), List.of(there)));
    assertEquals(Set.of(), git.missing(List.of(there)), "git, asked instead, finds it there");

    Git plain = bare(tmp.resolve("plain.git"));
    assertEquals(
        Optional.empty(),
        ObjectFiles.missing(
            plain.gitDir(), Map.of("GIT_OBJECT_DIRECTORY", "/elsewhere"), List.of(there)));
    assertEquals(
        Optional.empty(),
        ObjectFiles.missing(plain.gitDir(), Map.of(), List.of("ab".repeat(32))),
        "a SHA-256 name");
  }

  @Test
  void anIndexItCannotReadMeansGitIsAsked(@TempDir Path tmp) throws Exception {
    Git git = bare(tmp.resolve("r.git"));
    String packed = blobs(git, "packed", 1).get(0);
    git.run(null, "repack", "-q", "-a", "-d");
    try (Stream<Path> s = Files.list(git.gitDir().resolve("objects/pack"))) {
      Path idx = s.filter(p -> p.toString().endsWith(".idx")).findFirst().orElseThrow();
      Files.write(idx, new byte[] {1, 2, 3});
    }
    assertEquals(Optional.empty(), ObjectFiles.missing(git.gitDir(), Map.of(), List.of(packed)));
  }

  private static Git bare(Path dir) throws Exception {
    Git git = Git.at(dir);
    git.run(null, "init", "--quiet", "--bare", dir.toString());
    return git;
  }

  private static List<String> blobs(Git git, String prefix, int n) throws Exception {
    StringBuilder names = new StringBuilder();
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Path f = Files.createTempFile(prefix, ".txt");
      Files.writeString(f, prefix + " " + i + "\n", StandardCharsets.UTF_8);
      files.add(f);
      names.append(f).append('\n');
    }
    String out =
        new String(
            git.run(
                names.toString().getBytes(StandardCharsets.UTF_8),
                "hash-object",
                "-w",
                "--stdin-paths"),
            StandardCharsets.UTF_8);
    for (Path f : files) {
      Files.delete(f);
    }
    List<String> shas = out.lines().toList();
    // Each blob reachable from a ref, so a repack keeps it.
    StringBuilder refs = new StringBuilder();
    for (int i = 0; i < shas.size(); i++) {
      refs.append("create refs/blobs/").append(prefix).append('/').append(i);
      refs.append(' ').append(shas.get(i)).append('\n');
    }
    git.run(refs.toString().getBytes(StandardCharsets.UTF_8), "update-ref", "--stdin");
    return shas;
  }

  private static Path objectFile(Git git, String sha) {
    return git.gitDir().resolve("objects/" + sha.substring(0, 2) + "/" + sha.substring(2));
  }

  private static long packs(Git git) throws Exception {
    try (Stream<Path> s = Files.list(git.gitDir().resolve("objects/pack"))) {
      return s.filter(p -> p.toString().endsWith(".idx")).count();
    }
  }

  /** cat-file --batch-check's own answer, asked directly. */
  private static Set<String> gitsAnswer(Git git, List<String> shas) throws Exception {
    String out =
        new String(
            git.run(
                String.join("\n", shas).concat("\n").getBytes(StandardCharsets.UTF_8),
                "cat-file",
                "--batch-check"),
            StandardCharsets.UTF_8);
    Set<String> missing = new HashSet<>();
    out.lines()
        .filter(l -> l.endsWith(" missing"))
        .forEach(l -> missing.add(l.substring(0, l.length() - " missing".length())));
    return missing;
  }
}
