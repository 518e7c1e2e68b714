package dev.knotless.storage.mirror;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.storage.git.Git;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Refs written from this JVM read back through git as git would have set them; the rest is git's.
 */
class RefFilesIT {
  @TempDir Path tmp;
  private Git git;
  private String a;
  private String b;

  @BeforeEach
  void aRepositoryWithALooseAndAPackedRef() throws Exception {
    git = Git.at(tmp.resolve("r.git"));
    git.run(null, "init", "--quiet", "--bare", git.gitDir().toString());
    String empty = text(git.run(new byte[0], "mktree"));
    Git author =
        git.withEnv("GIT_AUTHOR_NAME", "a")
            .withEnv("GIT_AUTHOR_EMAIL", "a@example.com")
            .withEnv("GIT_COMMITTER_NAME", "a")
            .withEnv("GIT_COMMITTER_EMAIL", "a@example.com");
    a = text(author.run(null, "commit-tree", empty, "-m", "a"));
    b = text(author.run(null, "commit-tree", empty, "-p", a, "-m", "b"));
    git.run(null, "update-ref", "refs/tags/v1", a);
    git.run(null, "pack-refs", "--all");
    git.run(null, "update-ref", "refs/heads/main", a);
  }

  @Test
  void plainUpdatesAreWrittenAsGitReadsThem() throws Exception {
    Map<String, String> have = RefFiles.read(git);
    assertEquals(Map.of("refs/heads/main", a, "refs/tags/v1", a), have);

    assertTrue(
        RefFiles.write(
            git,
            Map.of("refs/heads/main", b, "refs/heads/feature/x-1.2", b, "refs/tags/v1", b),
            have));

    assertEquals(
        "refs/heads/feature/x-1.2 " + b + "\nrefs/heads/main " + b + "\nrefs/tags/v1 " + b,
        text(git.run(null, "for-each-ref", "--format=%(refname) %(objectname)")));
    try (Stream<Path> s = Files.walk(git.gitDir())) {
      assertFalse(s.anyMatch(p -> p.toString().endsWith(".lock")), "no lock file left");
    }
    git.run(null, "fsck", "--no-dangling");
  }

  @Test
  void anythingButThePlainestIsLeftToGitWithNothingWritten() throws Exception {
    Map<String, String> have = RefFiles.read(git);
    for (String name :
        new String[] {
          "refs/heads/a..b",
          "refs/heads/x.lock",
          "refs/heads/.hidden",
          "refs/heads/end.",
          "refs/heads/at@{1}",
          "refs/remotes/origin/main",
          "refs/heads/main/under", // main is a ref, so it cannot be a directory too
          "refs/tags/v1/under",
          "HEAD",
        }) {
      assertFalse(RefFiles.write(git, Map.of(name, b), have), name);
    }
    Files.createDirectories(git.gitDir().resolve("logs"));
    assertFalse(
        RefFiles.write(git, Map.of("refs/heads/main", b), have), "a repository with reflogs");
    assertEquals(
        "refs/heads/main " + a + "\nrefs/tags/v1 " + a,
        text(git.run(null, "for-each-ref", "--format=%(refname) %(objectname)")),
        "nothing written");
  }

  private static String text(byte[] out) {
    return new String(out, StandardCharsets.UTF_8).strip();
  }
}
