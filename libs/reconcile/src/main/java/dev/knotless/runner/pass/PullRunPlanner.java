package dev.knotless.runner.pass;

import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.exec.cache.CacheRules;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.plan.RunOrder;
import dev.knotless.runner.run.InvalidVariablesException;
import dev.knotless.runner.run.RunContext;
import dev.knotless.runner.run.StepEnvironment;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.workflow.Step;
import dev.knotless.runner.workflow.Workflow;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a workflow due at a pull or a merge-queue batch into a check and a run. Such a run is of
 * code nobody on the base branch has vouched for yet, so it is planned apart from a push's: it gets
 * no secrets, never runs with {@code --trusted-runtime}, matches no ref, and reads its caches by
 * the pull rules. Made by {@link RunPlanner}, whose settings it shares. Stateless; safe to share.
 */
public final class PullRunPlanner {

  private final RunPlanner.Settings settings;

  PullRunPlanner(RunPlanner.Settings settings) {
    this.settings = settings;
  }

  /**
   * Where a pull's run is: the pull, its head branch and commit, the base branch and its tip, and
   * the commit checked out (the merge commit, or the head when it contains the base).
   */
  public record PullSubject(
      String uri, String headRef, String head, String baseRef, String base, String checkedOut) {}

  /** The record key of a pull's check. */
  public static String pullKey(Watched repo, PullSubject p, String workflow) {
    return CheckKeys.pull(
        repo.id().ownerDid(), repo.id().repoKey(), p.uri(), p.head(), p.base(), workflow);
  }

  /**
   * A pull's check as first filed: it names the head branch, the head, the base tip and the pull.
   */
  public static CheckRecord pullCheck(
      Watched repo,
      PullSubject p,
      String workflow,
      CheckStatus status,
      List<StepResult> steps,
      String note,
      Instant now) {
    return new CheckRecord(
        repo.repoUri(),
        p.headRef(),
        p.head(),
        p.base(),
        p.uri(),
        workflow,
        status,
        now,
        null,
        status.ended() ? now : null,
        steps,
        null,
        List.of(),
        note);
  }

  /**
   * A pull's run of {@code w}, queued: checked out at the merge commit, told the head as {@code
   * KNOTLESS_RUN_SHA} and the base tip as {@code KNOTLESS_RUN_BASE}, given no secrets whoever's the
   * pull is, and never run with {@code --trusted-runtime}.
   */
  public PlannedRun pull(
      Watched repo, Path mirror, Workflow w, PullSubject p, RunClass runClass, Instant now) {
    return pull(repo, mirror, w, p, runClass, false, now);
  }

  /**
   * A pull's run as above, knowing whether every writer of the pull is the owner or a collaborator
   * ({@code trusted}): an untrusted one's run of a workflow asking for secrets reads its caches
   * apart.
   */
  public PlannedRun pull(
      Watched repo,
      Path mirror,
      Workflow w,
      PullSubject p,
      RunClass runClass,
      boolean trusted,
      Instant now) {
    String rkey = pullKey(repo, p, w.name());
    CheckRecord queued = pullCheck(repo, p, w.name(), CheckStatus.QUEUED, List.of(), null, now);
    RunRequest request =
        RunPlanner.request(
            repo, rkey, p.uri(), SubjectKind.PULL, w, p.head() + " " + p.base(), runClass);
    PlannedRun.Preparer prepare = () -> pullSpec(repo, mirror, w, p, rkey, trusted);
    RunOrder order =
        order(
            repo,
            w,
            p.baseRef(),
            p.checkedOut(),
            p.base(),
            runClass,
            rkey,
            RunOrder.Kind.PULL,
            List.of(new RunOrder.Stacked(p.uri(), p.head(), p.headRef())));
    return new PlannedRun(repo.label(), request, queued, prepare, order);
  }

  /** What another process needs to run a pull's or batch's run: nothing it does not read again. */
  private static RunOrder order(
      Watched repo,
      Workflow w,
      String baseRef,
      String checkedOut,
      String base,
      RunClass runClass,
      String rkey,
      RunOrder.Kind kind,
      List<RunOrder.Stacked> pulls) {
    return new RunOrder(
        repo.label(),
        repo.id().ownerDid(),
        repo.id().repoKey(),
        baseRef,
        checkedOut,
        base,
        w.name(),
        runClass,
        w.superseded(),
        Map.of(),
        rkey,
        kind,
        pulls,
        repo.privateRepo());
  }

  /**
   * A merge-queue batch's run of {@code w}, queued: checked out at the batch's {@code tip} built on
   * {@code base} of {@code baseRef}, told the tip as {@code KNOTLESS_RUN_SHA}, the base as {@code
   * KNOTLESS_RUN_BASE} and the branch as {@code KNOTLESS_RUN_REF}; no secrets, and no step matches
   * a ref, as in a pull's run. {@code trusted} when every pull in it is.
   *
   * @param stacked the batch's pulls in the order they were stacked on {@code base} to make {@code
   *     tip}: what another process needs to make the tip again
   */
  public PlannedRun batch(
      Watched repo,
      Path mirror,
      Workflow w,
      String baseRef,
      String base,
      String tip,
      RunClass runClass,
      boolean trusted,
      String note,
      List<RunOrder.Stacked> stacked,
      Instant now) {
    String rkey =
        CheckKeys.queue(repo.id().ownerDid(), repo.id().repoKey(), baseRef, tip, base, w.name());
    CheckRecord queued =
        new CheckRecord(
            repo.repoUri(),
            baseRef,
            tip,
            base,
            null,
            w.name(),
            CheckStatus.QUEUED,
            now,
            null,
            null,
            List.of(),
            null,
            List.of(),
            note);
    RunRequest request =
        RunPlanner.request(
            repo, rkey, "queue " + baseRef, SubjectKind.BATCH, w, tip + " " + base, runClass);
    PullSubject p = new PullSubject("queue " + baseRef, baseRef, tip, baseRef, base, tip);
    PlannedRun.Preparer prepare = () -> pullSpec(repo, mirror, w, p, rkey, trusted);
    RunOrder order =
        order(repo, w, baseRef, tip, base, runClass, rkey, RunOrder.Kind.BATCH, stacked);
    return new PlannedRun(repo.label(), request, queued, prepare, order);
  }

  private RunSpec pullSpec(
      Watched repo, Path mirror, Workflow w, PullSubject p, String rkey, boolean trusted)
      throws PlannedRun.PrepareException {
    List<String> preamble = new ArrayList<>();
    preamble.add(
        p.checkedOut().equals(p.head())
            ? "==> checked at the head "
                + p.head()
                + ", which contains "
                + p.baseRef()
                + " at "
                + p.base()
            : "==> checked at "
                + p.checkedOut()
                + ": the head "
                + p.head()
                + " merged into "
                + p.baseRef()
                + " at "
                + p.base());
    for (String name : w.secrets()) {
      preamble.add("==> " + name + " is not given to a pull's run: no pull run gets secrets");
    }
    RunContext context =
        new RunContext(repo.label(), p.headRef(), p.head(), p.base(), "", w.name(), rkey, rkey);
    StepEnvironment.Built env;
    try {
      env =
          StepEnvironment.build(
              w,
              context,
              Map.of(),
              Map.of(),
              StepEnvironment.hostVariables(settings.hostEnvironment()));
    } catch (InvalidVariablesException e) {
      throw new PlannedRun.PrepareException(e.getMessage());
    }
    List<ExecStep> steps = new ArrayList<>();
    for (Step s : w.steps()) {
      // A pull's run matches no ref: a step for refs/heads/main runs only at the push that lands.
      steps.add(ExecStep.of(s, null));
    }
    return RunSpec.of(mirror, p.checkedOut(), steps)
        .withAnyOption(dev.knotless.runner.exec.ContainerImage.named(w.image()))
        .withTrustedCode(false)
        .withOption(
            new CacheRequest(
                // The owner's DID and the record key: a rename keeps the caches.
                repo.stateKey(),
                w.name(),
                w.cache(),
                CacheRules.pull(!w.cache().isEmpty(), trusted, !w.secrets().isEmpty())))
        .withEnv(new LinkedHashMap<>(env.variables()))
        .withPreamble(preamble)
        .withLimits(settings.limits(false));
  }
}
