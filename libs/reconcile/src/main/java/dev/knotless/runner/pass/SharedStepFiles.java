package dev.knotless.runner.pass;

import dev.knotless.runner.workflow.SharedSteps;
import dev.knotless.runner.workflow.StepFile;
import dev.knotless.runner.workflow.StepLock;
import dev.knotless.runner.workflow.Uses;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.merge.CommitFiles;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Loads a commit's workflows with their shared steps in place: the lock file read at the commit,
 * each repository a {@code uses} step names read from its owner's PDS and the locked commit fetched
 * into a mirror of its own (once: a locked commit never changes), and each step file read there. A
 * workflow whose shared steps cannot be put in place (no lock entry, a repository gone or replaced,
 * a missing or bad step file) becomes an error naming why, so its check says so. Thread-safe.
 */
public final class SharedStepFiles {

  /** The most a lock file may hold. */
  static final long MAX_LOCK_BYTES = 1 << 20;

  private final HeadRepos repos;
  private final Path cacheDir;

  public SharedStepFiles(HeadRepos repos, Path cacheDir) {
    this.repos = repos;
    this.cacheDir = cacheDir;
  }

  /** The workflows at {@code commit} with their shared steps in place. */
  public WorkflowSet load(Git git, String commit) throws IOException {
    WorkflowSet set = CommitFiles.workflowSet(git, commit);
    if (set.workflows().stream().allMatch(w -> w.uses().isEmpty())) {
      return set;
    }
    List<Workflow> ok = new ArrayList<>();
    List<WorkflowError> errors = new ArrayList<>(set.errors());
    StepLock lock;
    String lockProblem = null;
    try {
      lock = lock(git, commit);
    } catch (IllegalArgumentException e) {
      lock = StepLock.NONE;
      lockProblem = e.getMessage();
    }
    for (Workflow w : set.workflows()) {
      if (w.uses().isEmpty()) {
        ok.add(w);
        continue;
      }
      try {
        if (lockProblem != null) {
          throw new IllegalArgumentException(lockProblem);
        }
        Map<Uses, StepFile> files = new LinkedHashMap<>();
        for (Uses u : w.uses()) {
          files.put(u, read(lock, u));
        }
        ok.add(SharedSteps.expand(w, files));
      } catch (IllegalArgumentException e) {
        errors.add(new WorkflowError(w.name(), List.of(w.file()), "steps", e.getMessage()));
      }
    }
    return new WorkflowSet(ok, errors);
  }

  /** {@code set} where no shared steps are read: a workflow that uses any is an error. */
  public static WorkflowSet unread(WorkflowSet set) {
    if (set.workflows().stream().allMatch(w -> w.uses().isEmpty())) {
      return set;
    }
    List<Workflow> ok = new ArrayList<>();
    List<WorkflowError> errors = new ArrayList<>(set.errors());
    for (Workflow w : set.workflows()) {
      if (w.uses().isEmpty()) {
        ok.add(w);
      } else {
        errors.add(
            new WorkflowError(
                w.name(),
                List.of(w.file()),
                "steps",
                "uses shared steps, which this runner does not read"));
      }
    }
    return new WorkflowSet(ok, errors);
  }

  /** The lock file at {@code commit}, or {@link StepLock#NONE} when there is none. */
  public static StepLock lock(Git git, String commit) throws IOException {
    Optional<byte[]> content = file(git, commit, StepLock.PATH, MAX_LOCK_BYTES);
    return content.isEmpty() ? StepLock.NONE : StepLock.parse(content.get());
  }

  private StepFile read(StepLock lock, Uses u) throws IOException {
    StepLock.Locked locked =
        lock.find(u.repo())
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "uses "
                            + u
                            + ", but "
                            + StepLock.PATH
                            + " does not lock "
                            + u.repo()
                            + ": add its did, key and commit there"));
    Mirror mirror = Mirror.open(cacheDir, locked.did(), locked.key());
    if (!mirror.git().has(locked.commit())) {
      Snapshot snap;
      try {
        snap = repos.read(locked.did(), u.name());
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "uses " + u + ", but " + u.repo() + " cannot be read: " + e.getMessage(), e);
      }
      if (!snap.exists() || !locked.key().equals(snap.key().orElse(null))) {
        throw new IllegalArgumentException(
            "uses "
                + u
                + ", but "
                + locked.did()
                + " has no repository "
                + u.name()
                + " with the locked key "
                + locked.key());
      }
      try {
        mirror.fetch(snap, repos.fetcher(locked.did()), List.of(locked.commit()));
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "uses "
                + u
                + ", but its locked commit "
                + locked.commit()
                + " cannot be fetched: "
                + e.getMessage(),
            e);
      }
    }
    byte[] content =
        file(mirror.git(), locked.commit(), u.path(), MAX_LOCK_BYTES)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "uses "
                            + u
                            + ", but there is no "
                            + u.path()
                            + " at "
                            + u.repo()
                            + "'s locked commit "
                            + locked.commit()));
    return StepFile.parse(u.toString(), u.path(), content);
  }

  /** A file at a commit, if it is there and within {@code max} bytes (else an error). */
  private static Optional<byte[]> file(Git git, String commit, String path, long max)
      throws IOException {
    Git.Result size = git.exec(null, List.of("cat-file", "-s", commit + ":" + path));
    if (size.exitCode() != 0) {
      return Optional.empty();
    }
    long bytes = Long.parseLong(size.out().strip());
    if (bytes > max) {
      throw new IllegalArgumentException(
          path + " at " + commit + " is " + bytes + " bytes, over the " + max + " allowed");
    }
    return Optional.of(git.run(null, "cat-file", "blob", commit + ":" + path));
  }
}
