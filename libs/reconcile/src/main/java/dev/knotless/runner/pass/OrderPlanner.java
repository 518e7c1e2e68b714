package dev.knotless.runner.pass;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.plan.RunOrder;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a {@link RunOrder} another process queued into a run this process can start: the repository
 * read again from its owner's PDS, the commit fetched into this process's own mirror, the workflow
 * read from the commit and the spec made by the same {@link RunPlanner} a pass uses, with this
 * process's secrets file. The work is done when the run gets its job, so a repository that cannot
 * be read or a workflow that is gone ends the run as an error naming why. A write-back planned this
 * way writes back as the pass's would (its {@link PlannedRun.Preparer#afterSteps}). Thread-safe:
 * runs of one repository take turns on its mirror.
 */
public final class OrderPlanner {

  private final PdsAccess access;
  private final RunPlanner planner;
  private final Path cacheDir;
  private final Clock clock;
  private final Map<String, Object> mirrorLocks = new ConcurrentHashMap<>();
  private final MergeOrders merges;

  public OrderPlanner(PdsAccess access, RunPlanner planner, Path cacheDir, Clock clock) {
    this.access = access;
    this.planner = planner;
    this.cacheDir = cacheDir;
    this.clock = clock;
    this.merges = new MergeOrders(this, access, planner, cacheDir, clock);
  }

  /**
   * The run {@code order} names, queued; its spec is made when it gets its job. A pull's or a
   * batch's order is planned by {@link MergeOrders}.
   */
  public PlannedRun plan(RunOrder order) {
    if (order.kind() != RunOrder.Kind.PUSH) {
      return merges.plan(order);
    }
    String name = order.label().substring(order.label().indexOf('/') + 1);
    CheckRecord queued =
        RunPlanner.pushCheck(
            "at://" + order.ownerDid() + "/dev.knotless.repo/" + name,
            order.ref(),
            order.commit(),
            order.workflow(),
            clock.instant());
    RunRequest request =
        new RunRequest(
            order.checkKey(),
            order.ownerDid(),
            order.ownerDid() + "/" + order.repoKey(),
            order.ref(),
            SubjectKind.REF,
            order.workflow(),
            order.commit(),
            order.runClass(),
            order.superseded(),
            order.privateRepo());
    return new PlannedRun(order.label(), request, queued, new Replanned(() -> push(order)), order);
  }

  /**
   * Makes a run's preparer when the run gets its job, and prepares it: the spec under the order's
   * check key, and what the planned run does after its steps (a write-back's commit).
   */
  static final class Replanned implements PlannedRun.Preparer {
    /** Plans the run again, reading what it needs. */
    @FunctionalInterface
    interface Plan {
      PlannedRun plan() throws PlannedRun.PrepareException;
    }

    private final Plan plan;
    private volatile PlannedRun.Preparer planned;
    private volatile dev.knotless.runner.state.PassedRun kept;

    Replanned(Plan plan) {
      this.plan = plan;
    }

    @Override
    public RunSpec prepare() throws PlannedRun.PrepareException {
      PlannedRun run = plan.plan();
      planned = run.prepare();
      kept = run.keep();
      return run.prepare()
          .prepare()
          .withOption(new dev.knotless.runner.exec.pod.RunKey(run.order().checkKey()));
    }

    @Override
    public dev.knotless.runner.exec.AfterSteps afterSteps() {
      PlannedRun.Preparer p = planned;
      return p == null ? dev.knotless.runner.exec.AfterSteps.NONE : p.afterSteps();
    }

    @Override
    public dev.knotless.runner.state.PassedRun kept() {
      return kept;
    }
  }

  /**
   * The repository {@code order} names, read again from its owner's PDS, with the snapshot it was
   * read from; a repository that is now another (a name taken over) is refused.
   */
  Watched.Found found(RunOrder order) throws PlannedRun.PrepareException {
    Watched.Found found;
    try {
      found = access.find(order.label());
    } catch (IOException | RuntimeException e) {
      throw new PlannedRun.PrepareException(
          order.label() + " could not be read from its owner's PDS: " + e.getMessage());
    }
    Watched repo = found.repo();
    if (repo.privateRepo() != order.privateRepo()) {
      // A name that changed sides since it was queued is another repository: nothing of a private
      // one is read or filed in public, nor a public one's in a space.
      throw new PlannedRun.PrepareException(
          order.label()
              + " is "
              + (repo.privateRepo() ? "private" : "public")
              + " now, not as when the run was queued: it is not run");
    }
    if (!repo.id().ownerDid().equals(order.ownerDid())
        || !repo.id().repoKey().equals(order.repoKey())) {
      throw new PlannedRun.PrepareException(
          order.label()
              + " is now "
              + repo.stateKey()
              + ", not "
              + order.ownerDid()
              + "/"
              + order.repoKey()
              + " as when the run was queued: it is not run");
    }
    return found;
  }

  /** What runs of {@code repo} hold while they change its mirror: they take turns. */
  Object mirrorLock(Watched repo) {
    return mirrorLocks.computeIfAbsent(repo.stateKey(), k -> new Object());
  }

  /** Workflow {@code name} of {@code set}, read at {@code commit}, or why it is not there. */
  static Workflow workflow(WorkflowSet set, String name, String commit)
      throws PlannedRun.PrepareException {
    return set.workflow(name)
        .orElseThrow(
            () ->
                new PlannedRun.PrepareException(
                    "workflow "
                        + name
                        + " is not at "
                        + commit
                        + " any more: "
                        + set.error(name)
                            .map(e -> e.field() + ": " + e.problem())
                            .orElse("no such file")));
  }

  /** The planned run's check key must be the order's: else it is another run, and not run. */
  static PlannedRun same(PlannedRun run, RunOrder order) throws PlannedRun.PrepareException {
    if (!run.rkey().equals(order.checkKey())) {
      throw new PlannedRun.PrepareException(
          "the run's check key is " + run.rkey() + " here, " + order.checkKey() + " when queued");
    }
    return new PlannedRun(
        run.label(), run.request(), run.check(), run.prepare(), order, run.keep());
  }

  private PlannedRun push(RunOrder order) throws PlannedRun.PrepareException {
    Watched.Found found = found(order);
    Watched repo = found.repo();
    Mirror mirror;
    Workflow w;
    try {
      synchronized (mirrorLock(repo)) {
        mirror = Mirror.open(cacheDir, repo.id().ownerDid(), repo.id().repoKey());
        if (!mirror.git().has(order.commit())) {
          // The snapshot the repository was just read from: its refs are read once per run.
          mirror.fetch(
              found.snapshot(), access.fetcher(access.storeOf(repo)), List.of(order.commit()));
        }
      }
      w =
          workflow(
              planner.workflows(mirror.git(), order.commit()), order.workflow(), order.commit());
    } catch (IOException e) {
      throw new PlannedRun.PrepareException(
          order.commit() + " of " + order.label() + " could not be fetched: " + e.getMessage());
    }
    return same(
        planner.push(
            repo,
            mirror.dir(),
            w,
            order.ref(),
            order.commit(),
            order.base(),
            order.runClass(),
            order.asked(),
            clock.instant()),
        order);
  }
}
