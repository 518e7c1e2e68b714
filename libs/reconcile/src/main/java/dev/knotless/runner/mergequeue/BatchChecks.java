package dev.knotless.runner.mergequeue;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.plan.RunOrder;
import dev.knotless.runner.pull.PassReuse;
import dev.knotless.runner.pull.PullTrust;
import dev.knotless.runner.queue.QueueState.Batch;
import dev.knotless.runner.queue.QueueState.Pull;
import dev.knotless.runner.reconcile.RunClasses;
import dev.knotless.runner.state.PassedRun;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.merge.CommitFiles;
import dev.knotless.storage.merge.PullReader;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A merge-queue batch's checks in this runner's account, keyed by {@link CheckKeys#queue}: filed at
 * the batch's tip before any of its runs starts, and read back to tell how the batch went.
 * Thread-safe.
 */
final class BatchChecks {

  private static final Logger LOG = LoggerFactory.getLogger(BatchChecks.class);

  private final XrpcClient runner;
  private final String runnerDid;
  private final CheckFiler filer;
  private final RunPlanner planner;
  private final Clock clock;

  BatchChecks(XrpcClient runner, CheckFiler filer, RunPlanner planner, Clock clock) {
    this.runner = runner;
    this.runnerDid = runner.did();
    this.filer = filer;
    this.planner = planner;
    this.clock = clock;
  }

  /** How a batch's runs stand. */
  enum Ended {
    RUNNING,
    PASSED,
    FAILED,
    /**
     * No run failed, but one ended with no runner left to finish it ({@link CheckFiler#STALE_NOTE}:
     * a scheduler that took over found no pod to follow): no verdict, the batch runs again.
     */
    ENDED_UNFINISHED
  }

  /**
   * What was filed.
   *
   * @param runs the runs to hand to the job pool, their checks filed as queued
   * @param filed how many checks were filed
   * @param broken whether a workflow does not load: the batch fails, and nothing runs
   */
  record Filed(List<PlannedRun> runs, int filed, boolean broken) {}

  /**
   * Files every check of the batch at its tip: a workflow that does not load as error (and then
   * nothing else), each workflow that runs on a pull into {@code ref} on this runner as queued.
   *
   * @param defaultRef the repository's default branch as a full ref: a trusted batch's passing runs
   *     into it are kept for the push that lands it
   * @param next whether it lands next (class Main), rather than built ahead (Later)
   * @param trusted whether every pull in it is trusted
   * @param headRef the head branch of each of its pulls, by AT-URI: what stacking it made its tip
   *     with, which a run's order carries
   */
  Filed file(
      Watched repo,
      Mirror mirror,
      String ref,
      String defaultRef,
      Batch b,
      boolean next,
      boolean trusted,
      java.util.function.UnaryOperator<String> headRef)
      throws IOException {
    List<RunOrder.Stacked> stacked =
        b.pulls().stream()
            .map(p -> new RunOrder.Stacked(p.uri(), p.head(), headRef.apply(p.uri())))
            .toList();
    WorkflowSet set = CommitFiles.workflowSet(mirror.git(), b.tip());
    Instant now = clock.instant();
    String note =
        "merge-queue batch "
            + b.id()
            + (b.foundBy() != 0 ? " (halving batch " + b.foundBy() + ")" : "")
            + " of "
            + b.pulls().size()
            + " pulls: "
            + String.join(" ", b.pulls().stream().map(Pull::uri).toList());
    int filed = 0;
    for (WorkflowError e : set.errors()) {
      filer.file(
          CheckKeys.queue(
              repo.id().ownerDid(), repo.id().repoKey(), ref, b.tip(), b.base(), e.name()),
          new CheckRecord(
              repo.repoUri(),
              ref,
              b.tip(),
              b.base(),
              null,
              e.name(),
              CheckStatus.ERROR,
              now,
              null,
              now,
              List.of(),
              null,
              List.of(),
              e.message()));
      filed++;
    }
    List<PlannedRun> runs = new ArrayList<>();
    String tree = null;
    // A workflow that does not load fails the batch: nothing else is filed or run.
    for (Workflow w : set.errors().isEmpty() ? set.workflows() : List.<Workflow>of()) {
      if (!w.runsOnPullInto(ref) || !w.runsOnRunner(runnerDid)) {
        continue;
      }
      PlannedRun run =
          planner
              .pulls()
              .batch(
                  repo,
                  mirror.dir(),
                  w,
                  ref,
                  b.base(),
                  b.tip(),
                  RunClasses.forBatch(next),
                  trusted,
                  note,
                  stacked,
                  now);
      // A trusted batch's pass is kept as a trusted pull's is: the push that lands it takes it.
      if (PassReuse.whyNotKept(
              w, trusted ? PullTrust.TRUSTED : PullTrust.UNTRUSTED, ref, defaultRef)
          .isEmpty()) {
        if (tree == null) {
          tree = mirror.git().revParse(b.tip() + "^{tree}");
        }
        run =
            run.keptAs(
                new PassedRun(
                    tree,
                    w.name(),
                    filer.uri(run.rkey()),
                    "merge-queue batch " + b.id() + " of " + ref));
      }
      filer.file(run.rkey(), run.check());
      runs.add(run);
      filed++;
    }
    LOG.info(
        "{}: batch {} on {} at {} ({} pulls on {}): {} checks filed, {} to run",
        repo.label(),
        b.id(),
        ref,
        b.tip().substring(0, 12),
        b.pulls().size(),
        b.base().substring(0, 12),
        filed,
        runs.size());
    return new Filed(runs, filed, !set.errors().isEmpty());
  }

  /**
   * How the batch's runs stand, read from its checks. A cancelled check (a stop, or a start's sweep
   * of what a stop left) is no verdict on the pulls: the batch is not done.
   */
  Ended ended(Watched repo, String ref, Batch b) throws IOException {
    return ended(read(repo, ref, b).values());
  }

  /**
   * How a batch with these checks stands: a failure decides it at once; otherwise a run still going
   * or cancelled waits, and one ended unfinished runs the batch again once the others are done.
   */
  static Ended ended(Collection<CheckRecord> checks) {
    if (checks.isEmpty()) {
      return Ended.RUNNING;
    }
    boolean running = false;
    boolean unfinished = false;
    for (CheckRecord c : checks) {
      if (CheckFiler.endedUnfinished(c)) {
        unfinished = true;
        continue;
      }
      switch (c.status()) {
        case SUCCESS -> {}
        case QUEUED, RUNNING, CANCELLED -> running = true;
        default -> {
          return Ended.FAILED;
        }
      }
    }
    return running ? Ended.RUNNING : unfinished ? Ended.ENDED_UNFINISHED : Ended.PASSED;
  }

  /** The batch's checks at its tip and base, by record key: one {@code listRecords} scan. */
  Map<String, CheckRecord> read(Watched repo, String ref, Batch b) throws IOException {
    String prefix =
        CheckKeys.queuePrefix(repo.id().ownerDid(), repo.id().repoKey(), ref)
            + b.tip()
            + "."
            + b.base()
            + ".";
    Map<String, CheckRecord> out = new LinkedHashMap<>();
    for (Record r : PullReader.scan(runner, runnerDid, CheckRecord.COLLECTION, prefix)) {
      out.put(r.rkey(), CheckRecord.fromJson(r.value()));
    }
    return out;
  }
}
