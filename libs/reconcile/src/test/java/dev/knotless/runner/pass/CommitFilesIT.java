package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.GitFixture;
import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.merge.CommitFiles;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Workflows read from a commit with the real git, without a checkout. */
class CommitFilesIT {

  @Test
  void aWorkflowFileOverTheLimitIsAnErrorNamingItsSizeAndTheOthersStillLoad(@TempDir Path tmp)
      throws Exception {
    Path src = tmp.resolve("src");
    Path workflows = Files.createDirectories(src.resolve(".knotless/workflows"));
    GitFixture.git(src, "init", "--quiet", "--initial-branch=main");
    Files.writeString(
        workflows.resolve("ci.yml"), "on: {push: {}}\nsteps:\n  - name: a\n    run: echo a\n");
    long big = WorkflowSet.MAX_FILE_BYTES + 1;
    try (RandomAccessFile f = new RandomAccessFile(workflows.resolve("huge.yml").toFile(), "rw")) {
      f.setLength(big);
    }
    GitFixture.git(src, "add", "-A");
    GitFixture.git(
        src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "two");
    String commit = GitFixture.git(src, "rev-parse", "HEAD").strip();

    WorkflowSet set = CommitFiles.workflowSet(Git.at(src.resolve(".git")), commit);

    assertEquals(List.of("ci"), set.workflows().stream().map(w -> w.name()).toList());
    WorkflowError e = set.error("huge").orElseThrow();
    assertEquals(
        ".knotless/workflows/huge.yml: is "
            + big
            + " bytes, over the 1 MiB a workflow file may hold, so it was not read",
        e.message());
  }

  @Test
  void workflowFilesWhoseNamesHoldControlCharactersOrRunLongAreErrorsNamingThemEscaped(
      @TempDir Path tmp) throws Exception {
    Path src = tmp.resolve("src");
    Path workflows = Files.createDirectories(src.resolve(".knotless/workflows"));
    GitFixture.git(src, "init", "--quiet", "--initial-branch=main");
    String step = "on: {push: {}}\nsteps:\n  - name: a\n    run: echo a\n";
    Files.writeString(workflows.resolve("ci.yml"), step);
    Files.writeString(workflows.resolve("two\nlines.yml"), step);
    Files.writeString(workflows.resolve("\u001b[31mred.yml"), step);
    String longName = "l".repeat(150);
    Files.writeString(workflows.resolve(longName + ".yml"), step);
    GitFixture.git(src, "add", "-A");
    GitFixture.git(
        src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "names");
    String commit = GitFixture.git(src, "rev-parse", "HEAD").strip();

    WorkflowSet set = CommitFiles.workflowSet(Git.at(src.resolve(".git")), commit);

    assertEquals(List.of("ci"), set.workflows().stream().map(w -> w.name()).toList());
    assertEquals(
        ".knotless/workflows/two\\nlines.yml: the file's name holds a control or invisible"
            + " character; rename it",
        set.error("two\\nlines").orElseThrow().message());
    assertEquals(
        ".knotless/workflows/\\u001b[31mred.yml: the file's name holds a control or invisible"
            + " character; rename it",
        set.error("\\u001b[31mred").orElseThrow().message());
    WorkflowError tooLong =
        set.errors().stream().filter(e -> e.name().startsWith("lll")).findFirst().orElseThrow();
    assertEquals(
        "the file's name is 150 characters before its extension, more than 100; rename it",
        tooLong.problem());
    for (WorkflowError e : set.errors()) {
      assertEquals(-1, e.message().indexOf('\n'), e.message());
      assertEquals(-1, e.message().indexOf('\u001b'), e.message());
      assertEquals(-1, e.name().indexOf('\n'), e.name());
    }
  }

  @Test
  void theChangedPathsAreThoseGitDiffNamesAcrossAddsRemovesModesAndFilesBecomingDirectories(
      @TempDir Path tmp) throws Exception {
    Path src = tmp.resolve("src");
    Files.createDirectories(src.resolve("a/b"));
    GitFixture.git(src, "init", "--quiet", "--initial-branch=main");
    Files.writeString(src.resolve("same.txt"), "same\n");
    Files.writeString(src.resolve("edit.txt"), "one\n");
    Files.writeString(src.resolve("mode.sh"), "echo\n");
    Files.writeString(src.resolve("gone.txt"), "gone\n");
    Files.writeString(src.resolve("becomes"), "a file first\n");
    Files.writeString(src.resolve("a/b/deep.txt"), "deep\n");
    Files.writeString(src.resolve("a/keep.txt"), "keep\n");
    String from = commit(src, "from");
    Files.writeString(src.resolve("edit.txt"), "two\n");
    Files.setPosixFilePermissions(
        src.resolve("mode.sh"),
        java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.delete(src.resolve("gone.txt"));
    Files.delete(src.resolve("becomes"));
    Files.createDirectories(src.resolve("becomes"));
    Files.writeString(src.resolve("becomes/inside.txt"), "now a directory\n");
    Files.writeString(src.resolve("a/b/deep.txt"), "deeper\n");
    Files.createDirectories(src.resolve("new/dir"));
    Files.writeString(src.resolve("new/dir/added.txt"), "added\n");
    String to = commit(src, "to");
    Git git = Git.at(src.resolve(".git"));

    java.util.Set<String> byGit =
        new java.util.TreeSet<>(
            List.of(
                GitFixture.git(src, "diff", "--name-only", "--no-renames", from, to)
                    .strip()
                    .split("\n")));
    assertEquals(
        java.util.Set.of(
            "edit.txt",
            "mode.sh",
            "gone.txt",
            "becomes",
            "becomes/inside.txt",
            "a/b/deep.txt",
            "new/dir/added.txt"),
        byGit,
        "what git itself names");
    assertEquals(byGit, new java.util.TreeSet<>(CommitFiles.changed(git, from, to)));
    assertEquals(byGit, new java.util.TreeSet<>(CommitFiles.changed(git, to, from)), "reversed");
    assertEquals(java.util.Set.of(), CommitFiles.changed(git, to, to));
    assertEquals(null, CommitFiles.changed(git, null, to), "a new ref: unknown");
  }

  @Test
  void workflowsInASubdirectoryAndBesideOtherFilesLoadAsLsTreeListsThem(@TempDir Path tmp)
      throws Exception {
    Path src = tmp.resolve("src");
    Path workflows = Files.createDirectories(src.resolve(".knotless/workflows/more"));
    GitFixture.git(src, "init", "--quiet", "--initial-branch=main");
    Files.writeString(
        src.resolve(".knotless/workflows/ci.yml"), "on: {push: {}}\nsteps: [{name: a, run: a}]\n");
    Files.writeString(workflows.resolve("x.txt"), "not a workflow\n");
    Files.writeString(src.resolve(".knotless/other.yml"), "not under workflows\n");
    String commit = commit(src, "one");
    Git git = Git.at(src.resolve(".git"));

    WorkflowSet set = CommitFiles.workflowSet(git, commit);

    assertEquals(List.of("ci"), set.workflows().stream().map(w -> w.name()).toList());
    assertEquals(List.of(), set.errors());
    Files.delete(src.resolve(".knotless/workflows/ci.yml"));
    Files.delete(workflows.resolve("x.txt"));
    String none = commit(src, "none");
    assertEquals(List.of(), CommitFiles.workflowSet(git, none).workflows(), "no directory");
  }

  @Test
  void aWorkflowTreeOrFileTheCommitNamesButTheRepositoryLacksFailsTheReadRatherThanReadingNone(
      @TempDir Path tmp) throws Exception {
    Path src = tmp.resolve("src");
    Files.createDirectories(src.resolve(".knotless/workflows"));
    GitFixture.git(src, "init", "--quiet", "--initial-branch=main");
    Files.writeString(
        src.resolve(".knotless/workflows/ci.yml"), "on: {push: {}}\nsteps: [{name: a, run: a}]\n");
    String commit = commit(src, "one");
    Git git = Git.at(src.resolve(".git"));
    String blob = GitFixture.git(src, "rev-parse", commit + ":.knotless/workflows/ci.yml").strip();
    String tree = GitFixture.git(src, "rev-parse", commit + ":.knotless/workflows").strip();

    // As a sync still writing objects leaves it: the commit is there, what it names is not yet.
    Files.delete(loose(src, blob));
    IOException noBlob =
        assertThrows(IOException.class, () -> CommitFiles.workflowSet(git, commit), "no blob");
    assertTrue(noBlob.getMessage().contains(blob.substring(0, 7)), noBlob.getMessage());
    Files.delete(loose(src, tree));
    assertThrows(IOException.class, () -> CommitFiles.workflowSet(git, commit), "no tree");
  }

  private static Path loose(Path src, String oid) {
    return src.resolve(".git/objects").resolve(oid.substring(0, 2)).resolve(oid.substring(2));
  }

  private static String commit(Path src, String message) throws Exception {
    GitFixture.git(src, "add", "-A");
    GitFixture.git(
        src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", message);
    return GitFixture.git(src, "rev-parse", "HEAD").strip();
  }
}
