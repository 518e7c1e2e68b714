package dev.knotless.runner.mergequeue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pass.HeadRepos;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.pass.RunSink;
import dev.knotless.runner.pass.SnapshotReaders;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.pullpass.PullPass;
import dev.knotless.runner.queue.QueuePlan;
import dev.knotless.runner.queue.QueueState.Pull;
import dev.knotless.runner.schedule.CancelReason;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.Snapshot;
import java.io.IOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The merge-queue step of a pass ({@code --queue}; docs/merge.md): reads the {@code
 * dev.knotless.queue} records of the owner and collaborators, and for each branch with queued pulls
 * carries out what {@link QueuePlan} decides: stacks batches on the branch tip in the mirror, files
 * their checks under {@link CheckKeys#queue} and hands their runs to the job pool, reads how they
 * ended, lands a passing batch with {@link BatchLanding}, halves a failing one and ejects the pull
 * that broke it with a check saying why. The plan is kept in the state after every step, so a stop
 * at any point resumes with {@link QueuePlan#resume}: nothing lands twice or half.
 *
 * <p>Only the repository's owner writes to it without the gateway, so this runner lands a queue
 * only when it runs as the owner's account. Thread-safe for passes of different repositories; the
 * doors never run two passes of one repository at once.
 */
public final class QueuePass {

  private static final Logger LOG = LoggerFactory.getLogger(QueuePass.class);

  /** The queue records' collection. */
  public static final String COLLECTION = "dev.knotless.queue";

  /** How a batch's runs name their subject: this, then the branch's full ref. */
  static final String BATCH_SUBJECT = "queue ";

  /** The workflow name of the check that says a pull was ejected from the queue. */
  public static final String EJECTED = "merge-queue";

  /** Reads accounts' records: the owner's and collaborators' queue records. */
  @FunctionalInterface
  public interface Accounts {
    /** A client of {@code did}'s PDS. */
    XrpcClient of(String did) throws IOException;
  }

  /** Cancels a run waiting or running in the job pool, by run id. */
  @FunctionalInterface
  public interface Cancels {
    void cancel(String runId, CancelReason why);
  }

  private final String runnerDid;
  private final XrpcClient runner;
  private final Accounts accounts;
  final SnapshotReaders readers;
  final HeadRepos heads;
  final StateStore state;
  final CheckFiler filer;
  private final RunPlanner planner;
  final RunSink sink;
  final Cancels cancels;
  final BatchLanding landing;
  final Clock clock;
  final int batch;
  final int depth;
  private final QueueNotice notice;
  private final QueueRecords records;
  final BatchChecks checks;
  private final QueuedPulls queuedPulls;
  final Set<String> resumed = ConcurrentHashMap.newKeySet();
  final Map<String, List<String>> runIds = new ConcurrentHashMap<>();

  /**
   * @param runner this runner's client, logged in: it reads its own checks and, as the owner, lands
   * @param landing pushes as this runner's account
   * @param pulls runs a queued pull's pre-flights on it, as a pull's run
   */
  public QueuePass(
      XrpcClient runner,
      Accounts accounts,
      SnapshotReaders readers,
      HeadRepos heads,
      StateStore state,
      CheckFiler filer,
      RunPlanner planner,
      RunSink sink,
      Cancels cancels,
      BatchLanding landing,
      PullPass pulls,
      Clock clock,
      int batch,
      int depth) {
    this.runnerDid = runner.did();
    this.runner = runner;
    this.accounts = accounts;
    this.readers = readers;
    this.heads = heads;
    this.state = state;
    this.filer = filer;
    this.planner = planner;
    this.sink = sink;
    this.cancels = cancels;
    this.landing = landing;
    this.clock = clock;
    this.batch = batch;
    this.depth = depth;
    this.notice = new QueueNotice(accounts, QueueNotice.SCAN);
    this.records = new QueueRecords(runnerDid, accounts, notice);
    this.checks = new BatchChecks(runner, filer, planner, clock);
    this.queuedPulls = new QueuedPulls(state, new PreFlightGate(runner, accounts, heads, pulls));
  }

  /**
   * The queue records this step read, to read again between passes ({@code --notice}): which
   * repositories' records changed since.
   */
  public QueueNotice notice() {
    return notice;
  }

  /**
   * Reads the repository's queue records, before the pulls step, so that the pulls queued do not
   * run on their own. A repository this runner does not land reads none.
   */
  public QueueRecords.Queue read(Watched repo, XrpcClient owner, Snapshot snap) throws IOException {
    return records.read(repo, owner, snap);
  }

  /**
   * Works the queue of every branch with queued pulls or batches under way.
   *
   * @param open every open pull the pulls step found, queued ones included
   * @param sync the repository's mirror, synced with {@code snap}
   */
  public void run(
      Watched repo,
      XrpcClient owner,
      Snapshot snap,
      QueueRecords.Queue queue,
      List<PullPass.Found> open,
      PullPass.MirrorSync sync,
      PausedOwners paused,
      Consumer<String> stage)
      throws IOException {
    QueuedPulls.forgetDroppedBatches(state, repo);
    if (!queue.lands()) {
      return;
    }
    Map<String, PullPass.Found> byUri = new LinkedHashMap<>();
    open.forEach(f -> byUri.put(f.pull().uri(), f));
    Map<String, List<Pull>> byBranch =
        queuedPulls.byBranch(repo, snap, queue, byUri, sync, paused, stage);
    Set<String> branches = new LinkedHashSet<>(byBranch.keySet());
    branches.addAll(state.load(repo.stateKey()).orElse(RepoState.empty()).queues().keySet());
    for (String branch : branches) {
      stage.accept("working the merge queue of " + branch);
      new QueueBranch(
              this,
              repo,
              owner,
              snap,
              branch,
              byBranch.getOrDefault(branch, List.of()),
              byUri,
              sync)
          .work();
    }
  }
}
