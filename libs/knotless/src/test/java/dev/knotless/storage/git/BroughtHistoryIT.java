package dev.knotless.storage.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pushed pack's history is shown whole in this JVM only where it is (git's {@code rev-list}
 * agrees), and anything it cannot show, a hole above all, is left to git.
 */
class BroughtHistoryIT {
  @TempDir Path tmp;
  private Git source;
  private Path work;
  private Git mirror;
  private String first;

  @BeforeEach
  void aMirrorAtTheFirstCommit() throws Exception {
    work = tmp.resolve("work");
    Files.createDirectories(work.resolve("dir/sub"));
    source = Git.at(work.resolve(".git"));
    source.run(null, "init", "--quiet", work.toString());
    Files.writeString(work.resolve("a.txt"), "a\n");
    Files.writeString(work.resolve("dir/b.txt"), "b\n");
    Files.writeString(work.resolve("dir/sub/c.txt"), "c\n");
    first = commit("one");
    mirror = Git.at(tmp.resolve("mirror.git"));
    mirror.run(null, "init", "--quiet", "--bare", mirror.gitDir().toString());
    mirror.run(pack(first, null), "unpack-objects", "-q");
    mirror.run(null, "update-ref", "refs/heads/main", first);
  }

  @Test
  void aChangedFileInADirectoryIsShownWholeAsGitSays() throws Exception {
    Files.writeString(work.resolve("dir/sub/c.txt"), "c changed\n");
    Files.writeString(work.resolve("new.txt"), "new\n");
    String second = commit("two");
    List<LooseObjects.Parsed> brought = write(second);

    assertTrue(BroughtHistory.shownWhole(mirror, brought, List.of(second), Set.of(first)));
    assertEquals(Optional.empty(), mirror.firstMissingReachable(List.of(second)), "git agrees");
  }

  @Test
  void anEmptyCommitBringsNoTreeAndIsWhole() throws Exception {
    source
        .withEnv("GIT_WORK_TREE", work.toString())
        .withEnv("GIT_AUTHOR_NAME", "a")
        .withEnv("GIT_AUTHOR_EMAIL", "a@example.com")
        .withEnv("GIT_COMMITTER_NAME", "a")
        .withEnv("GIT_COMMITTER_EMAIL", "a@example.com")
        .run(null, "commit", "--quiet", "--allow-empty", "-m", "empty");
    String second = text(source.run(null, "rev-parse", "HEAD"));
    List<LooseObjects.Parsed> brought = write(second);
    assertEquals(1, brought.size(), "the commit alone");
    assertTrue(BroughtHistory.shownWhole(mirror, brought, List.of(second), Set.of(first)));
  }

  @Test
  void aHoleIsLeftToGitWhichFindsIt() throws Exception {
    Files.writeString(work.resolve("dir/sub/c.txt"), "c changed\n");
    String second = commit("two");
    List<LooseObjects.Parsed> brought = write(second);
    // The new blob is taken out again: the pack brought a tree naming an object that is not here.
    String blob = text(source.run(null, "rev-parse", second + ":dir/sub/c.txt"));
    Files.delete(
        mirror.gitDir().resolve("objects/" + blob.substring(0, 2) + "/" + blob.substring(2)));
    List<LooseObjects.Parsed> without =
        brought.stream().filter(o -> !o.name().equals(blob)).toList();

    assertFalse(BroughtHistory.shownWhole(mirror, without, List.of(second), Set.of(first)));
    assertEquals(Optional.of(blob), mirror.firstMissingReachable(List.of(second)));
  }

  @Test
  void anObjectThatIsHereButNoRefReachesIsNotTakenAsShown() throws Exception {
    // A tree left by a sync whose check failed: here, but naming a blob that is not.
    String absent = "1".repeat(40);
    String orphan =
        text(
            mirror.run(
                ("100644 blob " + absent + "\tgone.txt\n").getBytes(StandardCharsets.UTF_8),
                "mktree",
                "--missing"));
    // A commit naming the orphan tree under a new directory, built by hand in the mirror.
    String rootWithOrphan =
        text(
            mirror.run(
                (text(mirror.run(null, "ls-tree", first))
                        + "\n040000 tree "
                        + orphan
                        + "\torphan\n")
                    .getBytes(StandardCharsets.UTF_8),
                "mktree",
                "--missing"));
    String third =
        text(
            mirror
                .withEnv("GIT_AUTHOR_NAME", "a")
                .withEnv("GIT_AUTHOR_EMAIL", "a@example.com")
                .withEnv("GIT_COMMITTER_NAME", "a")
                .withEnv("GIT_COMMITTER_EMAIL", "a@example.com")
                .run(null, "commit-tree", rootWithOrphan, "-p", first, "-m", "three"));
    // As if a pack had brought the commit and its root tree, but not the orphan.
    List<LooseObjects.Parsed> brought =
        List.of(parsed(mirror, third, "commit"), parsed(mirror, rootWithOrphan, "tree"));

    assertFalse(BroughtHistory.shownWhole(mirror, brought, List.of(third), Set.of(first)));
    assertEquals(Optional.of(absent), mirror.firstMissingReachable(List.of(third)));
  }

  @Test
  void aParentNoRefNamesIsLeftToGit() throws Exception {
    Files.writeString(work.resolve("a.txt"), "a changed\n");
    String second = commit("two");
    List<LooseObjects.Parsed> brought = write(second);
    assertFalse(BroughtHistory.shownWhole(mirror, brought, List.of(second), Set.of()));
  }

  private List<LooseObjects.Parsed> write(String tip) throws Exception {
    return LooseObjects.write(mirror, pack(tip, first)).orElseThrow();
  }

  /** A pack of what {@code tip} has beyond {@code since}, with no deltas, as a small push sends. */
  private byte[] pack(String tip, String since) throws Exception {
    String revs = tip + "\n" + (since == null ? "" : "^" + since + "\n");
    return source.run(
        revs.getBytes(StandardCharsets.UTF_8),
        "pack-objects",
        "--revs",
        "--stdout",
        "-q",
        "--window=0");
  }

  private static LooseObjects.Parsed parsed(Git git, String name, String type) throws Exception {
    return new LooseObjects.Parsed(type, git.run(null, "cat-file", type, name), name);
  }

  private String commit(String message) throws Exception {
    Git inWork = source.withEnv("GIT_WORK_TREE", work.toString());
    inWork.run(null, "add", "-A");
    inWork
        .withEnv("GIT_AUTHOR_NAME", "a")
        .withEnv("GIT_AUTHOR_EMAIL", "a@example.com")
        .withEnv("GIT_COMMITTER_NAME", "a")
        .withEnv("GIT_COMMITTER_EMAIL", "a@example.com")
        .run(null, "commit", "--quiet", "--allow-empty", "-m", message);
    return text(source.run(null, "rev-parse", "HEAD"));
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8).strip();
  }
}
