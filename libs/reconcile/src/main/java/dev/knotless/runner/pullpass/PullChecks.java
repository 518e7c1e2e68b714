package dev.knotless.runner.pullpass;

import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pass.PullRunPlanner;
import dev.knotless.runner.pass.PullRunPlanner.PullSubject;
import dev.knotless.runner.pass.PullRunTrust;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.pass.RunSink;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.pull.PassReuse;
import dev.knotless.runner.pull.PullPlanner.Due;
import dev.knotless.runner.pull.PullPlanner.Why;
import dev.knotless.runner.pull.PullRecord;
import dev.knotless.runner.pull.PullTrust;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.state.PassedRun;
import dev.knotless.runner.workflow.Step;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.merge.CommitFiles;
import dev.knotless.storage.merge.MergeCommits;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files the checks of one due pull and hands its runs to the job pool: the head merged with the
 * base tip, the workflows of that commit whose {@code on.pull.base} matches the base, each filed
 * before any starts. A head that conflicts with the base files each workflow of the head that runs
 * on a pull into the base as failure, running nothing. Thread-safe.
 */
final class PullChecks {

  private static final Logger LOG = LoggerFactory.getLogger(PullChecks.class);

  private final CheckFiler filer;
  private final RunPlanner planner;
  private final RunSink sink;
  private final java.time.Clock clock;
  private final RunClass runClass;
  private final String runnerDid;
  private boolean pullsOnly;

  PullChecks(
      CheckFiler filer,
      RunPlanner planner,
      RunSink sink,
      java.time.Clock clock,
      RunClass runClass,
      String runnerDid) {
    this.runnerDid = runnerDid;
    this.filer = filer;
    this.planner = planner;
    this.sink = sink;
    this.clock = clock;
    this.runClass = runClass;
  }

  /**
   * These checks, on a {@code --pulls-only} runner: a trusted pull's pass that a push could reuse
   * promotes its cache layers itself, the bases it makes marked with the default branch's
   * generation at the tip it merged with, since no push here ever will.
   */
  PullChecks pullsOnly(boolean pullsOnly) {
    this.pullsOnly = pullsOnly;
    return this;
  }

  /**
   * {@code run}, its caches promoted on a pass over bases marked {@code mark} ({@code
   * --pulls-only}).
   */
  private static PlannedRun promoting(PlannedRun run, long mark) {
    PlannedRun.Preparer inner = run.prepare();
    PlannedRun.Preparer marked =
        new PlannedRun.Preparer() {
          @Override
          public dev.knotless.runner.exec.RunSpec prepare() throws PlannedRun.PrepareException {
            dev.knotless.runner.exec.RunSpec spec = inner.prepare();
            return spec.withOption(
                spec.options()
                    .get(
                        dev.knotless.runner.exec.cache.CacheRequest.class,
                        dev.knotless.runner.exec.cache.CacheRequest.NONE)
                    .promotingMarked(mark));
          }

          @Override
          public dev.knotless.runner.exec.AfterSteps afterSteps() {
            return inner.afterSteps();
          }
        };
    return new PlannedRun(run.label(), run.request(), run.check(), marked, run.order(), run.keep());
  }

  /** The note of a pull that conflicts with its base. */
  static String conflictNote(String baseRef, String base, List<String> files) {
    return "conflicts with "
        + baseRef
        + " at "
        + base.substring(0, 12)
        + " in "
        + String.join(", ", files)
        + ": merge "
        + baseRef.replaceFirst("^refs/heads/", "")
        + " into the head, or rebase the head onto it, and push";
  }

  /**
   * Files the pull's checks and hands its runs on.
   *
   * @param defaultRef the repository's default branch as a full ref: a trusted pull's passing run
   *     into it is kept for the push that merges it ({@link PassReuse})
   */
  void file(
      Watched repo,
      Mirror mirror,
      PullRecord p,
      Due due,
      String defaultRef,
      List<String> collaborators,
      PausedOwners paused,
      Instant now)
      throws IOException {
    file(repo, mirror, p, due, defaultRef, collaborators, paused, now, r -> r);
  }

  /** As above, each run made {@code each(run)} before it is filed and handed on. */
  void file(
      Watched repo,
      Mirror mirror,
      PullRecord p,
      Due due,
      String defaultRef,
      List<String> collaborators,
      PausedOwners paused,
      Instant now,
      java.util.function.UnaryOperator<PlannedRun> each)
      throws IOException {
    String head = due.pull().head();
    String base = due.pull().base();
    String baseRef = p.base().ref();
    Set<String> only = due.only();
    MergeCommits.Merged merged =
        MergeCommits.merge(mirror.git(), head, base, p.head().ref(), baseRef, p.uri());
    if (merged instanceof MergeCommits.Conflict c) {
      PullSubject subject = new PullSubject(p.uri(), p.head().ref(), head, baseRef, base, head);
      // No merge commit to load workflows from: those of the head say what would have run.
      WorkflowSet set = CommitFiles.workflowSet(mirror.git(), head);
      String note = conflictNote(baseRef, base, c.files());
      int n = 0;
      for (Workflow w : set.workflows()) {
        if (w.runsOnPullInto(baseRef)
            && w.runsOnRunner(runnerDid)
            && (only.isEmpty() || only.contains(w.name()))) {
          filer.file(
              PullRunPlanner.pullKey(repo, subject, w.name()),
              PullRunPlanner.pullCheck(
                  repo, subject, w.name(), CheckStatus.FAILURE, skipped(w), note, now));
          n++;
        }
      }
      LOG.info("{}: pull {}: {}; {} checks filed as failure", repo.label(), p.uri(), note, n);
      return;
    }
    MergeCommits.Checked checked = (MergeCommits.Checked) merged;
    PullTrust trust = due.pull().trust();
    // A run a stop dropped ran because it was due then: asked for, if it needed asking.
    boolean ownersAsk = due.why() == Why.ASKED || due.why() == Why.DROPPED;
    if (trust.runsAsItMoves()) {
      List<String> strangers =
          PullRunTrust.lockStrangers(repo, mirror, checked.commit(), base, collaborators);
      if (!strangers.isEmpty()) {
        trust = PullRunTrust.atMerge(trust, strangers);
        LOG.info(
            "{}: pull {} is not trusted: it brings shared steps from {}, which the base's lock"
                + " does not name and who do not write to the repository; {}",
            repo.label(),
            p.uri(),
            String.join(", ", strangers),
            ownersAsk
                ? "it runs as the owner asked, untrusted"
                : "it runs when the owner asks, with knotless rerun --pull " + p.uri());
        if (!ownersAsk) {
          return;
        }
      }
    }
    PullSubject subject =
        new PullSubject(p.uri(), p.head().ref(), head, baseRef, base, checked.commit());
    WorkflowSet set = planner.workflows(mirror.git(), checked.commit());
    Set<String> changed = CommitFiles.changed(mirror.git(), base, checked.commit());
    Optional<String> pausedWhy = paused.reasonFor(repo.id().ownerDid());
    for (WorkflowError e : set.errors()) {
      if (only.isEmpty() || only.contains(e.name())) {
        filer.file(
            PullRunPlanner.pullKey(repo, subject, e.name()),
            PullRunPlanner.pullCheck(
                repo, subject, e.name(), CheckStatus.ERROR, List.of(), e.message(), now));
      }
    }
    List<PlannedRun> runs = new ArrayList<>();
    String tree = null;
    int filed = set.errors().size();
    for (Workflow w : set.workflows()) {
      if (!w.runsOnPullInto(baseRef)
          || !w.runsOnRunner(runnerDid)
          || (!only.isEmpty() && !only.contains(w.name()))) {
        continue;
      }
      filed++;
      String key = PullRunPlanner.pullKey(repo, subject, w.name());
      if (pausedWhy.isPresent()) {
        filer.file(
            key,
            PullRunPlanner.pullCheck(
                repo,
                subject,
                w.name(),
                CheckStatus.ERROR,
                skipped(w),
                PausedOwners.message(pausedWhy.get()),
                now));
      } else if (!w.pullPathsMatch(changed)) {
        filer.file(
            key,
            PullRunPlanner.pullCheck(
                repo,
                subject,
                w.name(),
                CheckStatus.SUCCESS,
                skipped(w),
                w.pullPathsSkipNote(),
                now));
      } else {
        // An agent's pull runs untrusted: it reads apart where the workflow asks for secrets.
        boolean trusted = trust == PullTrust.TRUSTED;
        PlannedRun run =
            planner
                .pulls()
                .pull(repo, mirror.dir(), w, subject, runClass, trusted, clock.instant());
        if (PassReuse.whyNotKept(w, trust, baseRef, defaultRef).isEmpty()) {
          if (tree == null) {
            tree = mirror.git().revParse(checked.commit() + "^{tree}");
          }
          run = run.keptAs(new PassedRun(tree, w.name(), filer.uri(run.rkey()), p.uri()));
          if (pullsOnly) {
            // The default branch's generation at the tip merged with: the commits it reaches.
            run = promoting(run, Long.parseLong(mirror.git().text("rev-list", "--count", base)));
          }
        }
        run = each.apply(run);
        filer.file(run.rkey(), run.check());
        runs.add(run);
      }
    }
    LOG.info(
        "{}: pull {} ({}) at {} on {}: checked at {}, {} checks filed, {} to run",
        repo.label(),
        p.uri(),
        due.why(),
        head.substring(0, 12),
        base.substring(0, 12),
        checked.commit().substring(0, 12),
        filed,
        runs.size());
    runs.forEach(sink::submit);
  }

  private static List<StepResult> skipped(Workflow w) {
    List<StepResult> out = new ArrayList<>();
    for (Step s : w.steps()) {
      out.add(new StepResult(s.name(), StepResult.Status.SKIPPED, null, null, null));
    }
    return out;
  }
}
