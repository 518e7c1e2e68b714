package dev.knotless.runner.schedule;

import dev.knotless.runner.workflow.Superseded;
import java.util.Objects;

/**
 * One run, filed and asking for a job.
 *
 * @param runId the caller's unique id for the run (the check's record key serves)
 * @param ownerDid the DID of the owner of the repository, whose turns and caps the run counts in
 * @param repo the repository as {@code <owner did>/<repo key>}
 * @param subject what is checked: a full ref name, a pull's AT-URI, or {@code queue <ref>}
 * @param subjectKind what kind of subject that is
 * @param workflow the workflow's name
 * @param revision the commit, or for a pull or batch the head and base together; two runs of one
 *     workflow on one subject with different revisions are of different commits
 * @param runClass the class it is ranked in
 * @param superseded what a newer commit's run of the same workflow does to this one
 * @param privateRepo whether the repository is private, so its steps count against {@code
 *     --private-allowance} instead of {@code --allowance}
 */
public record RunRequest(
    String runId,
    String ownerDid,
    String repo,
    String subject,
    SubjectKind subjectKind,
    String workflow,
    String revision,
    RunClass runClass,
    Superseded superseded,
    boolean privateRepo) {

  public RunRequest {
    requireText(runId, "runId");
    requireText(ownerDid, "ownerDid");
    requireText(repo, "repo");
    requireText(subject, "subject");
    Objects.requireNonNull(subjectKind, "subjectKind");
    requireText(workflow, "workflow");
    requireText(revision, "revision");
    Objects.requireNonNull(runClass, "runClass");
    Objects.requireNonNull(superseded, "superseded");
  }

  /** Whether the run is asked for by name, which replaces an earlier run at the same commit. */
  public boolean askedByName() {
    return runClass == RunClass.ASKED;
  }

  /** Whether the run must hold its workflow's turn on the subject (superseded: finish). */
  public boolean needsTurn() {
    return superseded == Superseded.FINISH;
  }

  /** The workflow on the subject: runs sharing it supersede each other and share one turn. */
  public WorkKey workKey() {
    return new WorkKey(repo, subject, workflow);
  }

  private static void requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("a run request needs a " + name + ", got: " + value);
    }
  }

  /**
   * A workflow on one subject of one repository.
   *
   * @param repo the repository as {@code <owner did>/<repo key>}
   * @param subject a full ref name, a pull's AT-URI, or {@code queue <ref>}
   * @param workflow the workflow's name
   */
  public record WorkKey(String repo, String subject, String workflow) {}
}
