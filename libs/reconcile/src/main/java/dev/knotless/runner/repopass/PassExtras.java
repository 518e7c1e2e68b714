package dev.knotless.runner.repopass;

import dev.knotless.runner.pass.AskedRuns;
import dev.knotless.runner.pass.CheckPruner;
import dev.knotless.runner.pass.RepoDeletion;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.plan.AskedLedger;

/**
 * The parts of a pass beyond the refs' pushes: the owner's rerun requests, runs asked for by name,
 * pruning and clearing a deleted repository. {@link #none()} leaves them all out, for a pass that
 * only runs pushes. Immutable.
 *
 * @param reruns whether the owner's rerun requests are read and acted on
 * @param asked files runs asked for by name, or null to leave them waiting in the state
 * @param pruner prunes the runner's checks at the end of a pass, or null
 * @param deletion clears a deleted repository's checks and grants, or null
 * @param pulls checks open pulls after the refs ({@code --pulls}), or null
 * @param pullsOnly whether pushes are left to another runner ({@code --pulls-only}): they are
 *     recorded as seen, never run
 * @param runnerDid this runner's DID: a workflow whose {@code runners} does not name it files no
 *     check here; null runs every workflow
 * @param queue lands the merge queue after the pulls ({@code --queue}), or null
 */
public record PassExtras(
    boolean reruns,
    AskedRuns asked,
    CheckPruner pruner,
    RepoDeletion deletion,
    dev.knotless.runner.pullpass.PullPass pulls,
    boolean pullsOnly,
    String runnerDid,
    dev.knotless.runner.mergequeue.QueuePass queue) {

  /** Without pulls. */
  public PassExtras(boolean reruns, AskedRuns asked, CheckPruner pruner, RepoDeletion deletion) {
    this(reruns, asked, pruner, deletion, null, false, null, null);
  }

  /** No extras. */
  public static PassExtras none() {
    return new PassExtras(false, null, null, null);
  }

  /**
   * These extras, and pulls checked by {@code pulls}; pushes left to another runner if {@code
   * pullsOnly}.
   */
  public PassExtras withPulls(dev.knotless.runner.pullpass.PullPass pulls, boolean pullsOnly) {
    return new PassExtras(reruns, asked, pruner, deletion, pulls, pullsOnly, runnerDid, queue);
  }

  /** These extras, and the merge queue landed by {@code queue} after the pulls. */
  public PassExtras withQueue(dev.knotless.runner.mergequeue.QueuePass queue) {
    return new PassExtras(reruns, asked, pruner, deletion, pulls, pullsOnly, runnerDid, queue);
  }

  /** These extras, for the runner {@code did}: workflows naming other runners are not its own. */
  public PassExtras forRunner(String did) {
    return new PassExtras(reruns, asked, pruner, deletion, pulls, pullsOnly, did, queue);
  }

  /** Whether this runner runs {@code w}: its {@code runners} is empty or names this runner. */
  public boolean runs(dev.knotless.runner.workflow.Workflow w) {
    return runnerDid == null || w.runsOnRunner(runnerDid);
  }

  /** Everything, from the runner's parts. */
  public static PassExtras all(
      RunPlanner planner,
      dev.knotless.runner.filing.CheckFiler filer,
      AskedLedger ledger,
      int keepCheckDays,
      java.nio.file.Path secretsFile) {
    return new PassExtras(
        true,
        new AskedRuns(planner, filer, ledger),
        new CheckPruner(filer, keepCheckDays),
        new RepoDeletion(filer, secretsFile));
  }
}
