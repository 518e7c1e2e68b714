package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.exec.GitFixture;
import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.merge.CommitFiles;
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
}
