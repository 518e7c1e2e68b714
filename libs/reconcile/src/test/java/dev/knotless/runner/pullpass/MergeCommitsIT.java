package dev.knotless.runner.pullpass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.knotless.storage.git.Git;
import dev.knotless.storage.merge.MergeCommits;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Merge commits made by the real git, in two repositories holding the same history. */
class MergeCommitsIT {

  static final String PULL = "at://did:plc:a/dev.knotless.pull/3kaaaaaaaaaaa.3kbbbbbbbbbbb";

  /** A work tree whose commits are made at times that differ run to run. */
  static String commit(Path work, String file, String text, String when) throws Exception {
    Files.writeString(work.resolve(file), text);
    Git git =
        Git.at(work.resolve(".git"))
            .withEnv("GIT_WORK_TREE", work.toString())
            .withEnv("GIT_AUTHOR_DATE", when)
            .withEnv("GIT_COMMITTER_DATE", when);
    git.run(null, "add", file);
    git.run(
        null, "-c", "user.name=A", "-c", "user.email=a@example.test", "commit", "-q", "-m", file);
    return git.text("rev-parse", "HEAD");
  }

  static Git repo(Path dir) throws Exception {
    Files.createDirectories(dir);
    Process p = new ProcessBuilder("git", "init", "-q", "-b", "main", dir.toString()).start();
    assertEquals(0, p.waitFor());
    return Git.at(dir.resolve(".git")).withEnv("GIT_WORK_TREE", dir.toString());
  }

  @Test
  void theSameHeadAndBaseMakeTheSameMergeCommitInAnotherRepositoryAndAtAnotherTime(
      @TempDir Path tmp) throws Exception {
    Path w = tmp.resolve("w");
    Git git = repo(w);
    String root = commit(w, "README.md", "hello\n", "@1000 +0000");
    String base = commit(w, "main.txt", "main\n", "@2000 +0000");
    git.run(null, "checkout", "-q", "-b", "feature", root);
    String head = commit(w, "feature.txt", "feature\n", "@3000 +0000");

    var first = MergeCommits.merge(git, head, base, "refs/heads/feature", "refs/heads/main", PULL);
    // A clone elsewhere, later: the same objects, nothing of where or when the merge is made.
    Path c = tmp.resolve("clone");
    Git.at(c).run(null, "clone", "-q", "--bare", w.toString(), c.toString());
    var second =
        MergeCommits.merge(Git.at(c), head, base, "refs/heads/feature", "refs/heads/main", PULL);
    MergeCommits.Checked a = assertInstanceOf(MergeCommits.Checked.class, first);
    assertEquals(a, second);
    assertEquals(true, a.merge());
    assertEquals(base + " " + head, git.text("log", "-1", "--format=%P", a.commit()));
    assertEquals(
        "knotless <merge@knotless.dev> 0 knotless <merge@knotless.dev> 0",
        git.text("log", "-1", "--format=%an <%ae> %at %cn <%ce> %ct", a.commit()));
    assertEquals(
        MergeCommits.message("refs/heads/feature", "refs/heads/main", PULL).strip(),
        git.text("log", "-1", "--format=%B", a.commit()));

    // Another base makes another commit.
    String base2 = commit(w, "more.txt", "more\n", "@4000 +0000");
    var third = MergeCommits.merge(git, head, base2, "refs/heads/feature", "refs/heads/main", PULL);
    assertNotEquals(a.commit(), ((MergeCommits.Checked) third).commit());
  }

  @Test
  void aHeadThatContainsTheBaseIsCheckedAsItselfAndAConflictNamesItsFiles(@TempDir Path tmp)
      throws Exception {
    Path w = tmp.resolve("w");
    Git git = repo(w);
    String base = commit(w, "README.md", "hello\n", "@1000 +0000");
    git.run(null, "checkout", "-q", "-b", "feature");
    String head = commit(w, "README.md", "the pull's\n", "@2000 +0000");
    assertEquals(
        new MergeCommits.Checked(head, false),
        MergeCommits.merge(git, head, base, "refs/heads/feature", "refs/heads/main", PULL));

    git.run(null, "checkout", "-q", "main");
    String moved = commit(w, "README.md", "main's\n", "@3000 +0000");
    assertEquals(
        new MergeCommits.Conflict(java.util.List.of("README.md")),
        MergeCommits.merge(git, head, moved, "refs/heads/feature", "refs/heads/main", PULL));
  }

  @Test
  void aBatchStacksEachPullOnTheOnesBeforeItTheSameWayEverywhereAndNamesAConflictsPlace(
      @TempDir Path tmp) throws Exception {
    Path w = tmp.resolve("w");
    Git git = repo(w);
    String root = commit(w, "README.md", "hello\n", "@1000 +0000");
    String base = commit(w, "main.txt", "main\n", "@2000 +0000");
    git.run(null, "checkout", "-q", "-b", "a", root);
    String a = commit(w, "a.txt", "a\n", "@3000 +0000");
    git.run(null, "checkout", "-q", "-b", "b", root);
    String b = commit(w, "b.txt", "b\n", "@4000 +0000");
    git.run(null, "checkout", "-q", "-b", "c", root);
    String c = commit(w, "a.txt", "not a\n", "@5000 +0000");
    var pa = new MergeCommits.Queued(PULL + "a", a, "refs/heads/a");
    var pb = new MergeCommits.Queued(PULL + "b", b, "refs/heads/b");
    var pc = new MergeCommits.Queued(PULL + "c", c, "refs/heads/c");

    var batch =
        assertInstanceOf(
            MergeCommits.Stacked.class,
            MergeCommits.stack(git, base, "refs/heads/main", java.util.List.of(pa, pb)));
    assertEquals(2, batch.commits().size());
    assertEquals(batch.commits().get(1), batch.tip());
    assertEquals(base + " " + a, git.text("log", "-1", "--format=%P", batch.commits().get(0)));
    assertEquals(
        batch.commits().get(0) + " " + b, git.text("log", "-1", "--format=%P", batch.tip()));
    assertEquals(
        MergeCommits.message("refs/heads/b", "refs/heads/main", PULL + "b").strip(),
        git.text("log", "-1", "--format=%B", batch.tip()));
    // The first pull's step is the very commit its own check merged.
    assertEquals(
        new MergeCommits.Checked(batch.commits().get(0), true),
        MergeCommits.merge(git, a, base, "refs/heads/a", "refs/heads/main", PULL + "a"));
    Path clone = tmp.resolve("clone");
    Git.at(clone).run(null, "clone", "-q", "--mirror", w.toString(), clone.toString());
    assertEquals(
        batch,
        MergeCommits.stack(Git.at(clone), base, "refs/heads/main", java.util.List.of(pa, pb)));

    assertEquals(
        new MergeCommits.StackConflict(2, java.util.List.of("a.txt")),
        MergeCommits.stack(git, base, "refs/heads/main", java.util.List.of(pa, pb, pc)));
  }
}
