package dev.knotless.runner.pass;

import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.filing.FilingAhead;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.reconcile.DueRef;
import dev.knotless.runner.reconcile.RefState;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.workflow.Step;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.merge.CommitFiles;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checks and runs of one pushed ref that is due: a workflow that does not load is filed as an
 * error, one of a paused owner as an error naming why, one whose paths the push did not touch as
 * skipped, one whose pass a pull already earned as taken, and the rest queued and handed to the
 * sink. Every check of the commit is filed before any run starts. Used by {@code RepoPass}, one
 * repository at a time.
 */
public final class PushChecks {

  // Logged as the pass it is a step of, as before it had a class of its own.
  private static final Logger LOG = LoggerFactory.getLogger(PushChecks.class);

  private final CheckFiler filer;
  private final RunPlanner planner;
  private final PassTaking taking;
  private final Predicate<Workflow> runs;
  private final RunSink sink;
  private final Clock clock;
  private volatile PassTrace trace = PassTrace.NONE;

  /** {@code runs} says which workflows this runner files checks of at all. */
  public PushChecks(
      CheckFiler filer,
      RunPlanner planner,
      PassTaking taking,
      Predicate<Workflow> runs,
      RunSink sink,
      Clock clock) {
    this.filer = filer;
    this.planner = planner;
    this.taking = taking;
    this.runs = runs;
    this.sink = sink;
    this.clock = clock;
  }

  public void tracing(PassTrace trace) {
    this.trace = trace;
  }

  /**
   * Files every check of {@code due}'s commit, then hands its runs on. {@code syncing} is the
   * mirror's sync of this pass, begun: its refs from before say where the ref was; its history
   * check runs while the workflows and changed paths are read, and must pass before anything is
   * filed. {@code defaultRef} is the repository's default branch.
   */
  public void file(
      Watched repo,
      Mirror mirror,
      Mirror.Syncing syncing,
      String defaultRef,
      DueRef due,
      PausedOwners pausedNow)
      throws IOException {
    RefState ref = due.ref();
    String commit = ref.target();
    String was = syncing.before().get(ref.name());
    Read read;
    try {
      read = read(mirror, was, commit);
    } finally {
      // Nothing read is acted on before the pushed history is known whole: a pack with a hole
      // fails the pass here, with the sync's own message, before any check is filed or step runs.
      syncing.awaitChecked();
    }
    if (read.failed != null) {
      // Read before the sync fetched all it needed: read again from the whole history (refs set).
      syncing.await();
      read = read(mirror, was, commit);
      if (read.failed != null) {
        throw read.failed;
      }
    }
    WorkflowSet set = read.workflows;
    Set<String> changed = read.changed;
    trace.now(PassTrace.Stage.WORKFLOWS, repo.stateKey());
    Instant now = clock.instant();
    List<String> only = due.onlyWorkflows();
    Optional<String> pausedWhy = pausedNow.reasonFor(repo.id().ownerDid());

    // Every check of the commit is filed before any run starts.
    List<PlannedRun> planned = new ArrayList<>();
    for (WorkflowError e : set.errors()) {
      if (!only.isEmpty() && !only.contains(e.name())) {
        continue;
      }
      filer.file(
          RunPlanner.pushKey(repo, ref.name(), commit, e.name()),
          RunPlanner.ended(
              repo,
              ref.name(),
              commit,
              e.name(),
              List.of(),
              CheckStatus.ERROR,
              StepResult.Status.SKIPPED,
              e.message(),
              now));
    }
    for (Workflow w : set.workflows()) {
      if (!w.runsOnPush(ref.name())
          || (!only.isEmpty() && !only.contains(w.name()))
          // A runner its runners does not name files no check: two never both run one deploy.
          || !runs.test(w)) {
        continue;
      }
      String key = RunPlanner.pushKey(repo, ref.name(), commit, w.name());
      List<String> steps = w.steps().stream().map(Step::name).toList();
      if (pausedWhy.isPresent()) {
        filer.file(
            key,
            RunPlanner.ended(
                repo,
                ref.name(),
                commit,
                w.name(),
                steps,
                CheckStatus.ERROR,
                StepResult.Status.SKIPPED,
                PausedOwners.message(pausedWhy.get()),
                now));
        continue;
      }
      if (changed != null && !w.pathsMatch(changed)) {
        filer.file(
            key,
            RunPlanner.ended(
                repo,
                ref.name(),
                commit,
                w.name(),
                steps,
                CheckStatus.SUCCESS,
                StepResult.Status.SKIPPED,
                w.pathsSkipNote(),
                now));
        continue;
      }
      if (due.why() == DueRef.Why.MOVED && only.isEmpty() && sink.handedOnLately(key)) {
        LOG.info(
            "{}: {} at {}: {} was handed on by a pass cut off before it recorded the ref; not run"
                + " again",
            repo.label(),
            ref.name(),
            commit.substring(0, 12),
            w.name());
        continue;
      }
      boolean rerun = commit.equals(was) || !only.isEmpty();
      if (taking.take(repo, mirror.git(), w, ref.name(), defaultRef, commit, rerun, key, now)) {
        continue;
      }
      PlannedRun run =
          planner.push(
              repo, mirror.dir(), w, ref.name(), commit, was, due.runClass(), Map.of(), now);
      planned.add(run);
    }
    fileAndHandOn(repo, planned, syncing);
    LOG.info(
        "{}: {} at {}: {} checks filed, {} to run",
        repo.label(),
        ref.name(),
        commit.substring(0, 12),
        set.workflows().size() + set.errors().size(),
        planned.size());
  }

  /**
   * Files the planned runs' checks queued and hands the runs on. When they run in this process, the
   * last check's write goes out just after the runs are handed on ({@link FilingAhead}), so a run
   * that gets its job at once files itself running without waiting for that write's reply.
   */
  private void fileAndHandOn(Watched repo, List<PlannedRun> planned, Mirror.Syncing syncing)
      throws IOException {
    boolean ahead = sink.runsHere() && !planned.isEmpty();
    List<PlannedRun> before = ahead ? planned.subList(0, planned.size() - 1) : planned;
    for (PlannedRun run : before) {
      filer.file(run.rkey(), run.check());
      trace.now(PassTrace.Stage.QUEUED, repo.stateKey());
    }
    // The mirror's refs were set while the checks were read and filed; a run clones the mirror.
    syncing.await();
    if (!ahead) {
      planned.forEach(sink::submit);
      return;
    }
    PlannedRun last = planned.get(planned.size() - 1);
    FilingAhead filing = FilingAhead.of(last.rkey(), last.check());
    try {
      planned.forEach(run -> sink.submit(run.behind(filing)));
      trace.now(PassTrace.Stage.QUEUED, repo.stateKey());
      filer.file(last.rkey(), last.check(), filing::sent);
      filing.landed();
    } catch (Throwable e) {
      filing.failed(e);
      throw e;
    }
  }

  /**
   * The workflows at a commit and the paths changed since {@code was}, or why they could not be.
   */
  private record Read(WorkflowSet workflows, Set<String> changed, IOException failed) {}

  /**
   * Reads the workflows at {@code commit} and then the paths changed since {@code was}; at the same
   * commit (a rerun, or runs dropped at a stop) or with none before, nothing moved, so no path
   * skips anything. Both come from the mirror's files in this JVM, a millisecond or two each, so
   * they are read one after the other on the pass's thread (git is started only for what the files
   * do not answer).
   */
  private Read read(Mirror mirror, String was, String commit) {
    long t = dev.knotless.storage.Trace.start();
    try {
      WorkflowSet set = planner.workflows(mirror.git(), commit);
      Set<String> changed =
          commit.equals(was) || was == null ? null : CommitFiles.changed(mirror.git(), was, commit);
      dev.knotless.storage.Trace.step("workflows and changed paths read", t);
      return new Read(set, changed, null);
    } catch (IOException e) {
      return new Read(null, null, e);
    }
  }
}
