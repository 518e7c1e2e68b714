package dev.knotless.runner.pass;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.engine.PlannedRun;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.queue.RunOrder;
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
 * be read or a workflow that is gone ends the run as an error naming why. Thread-safe: runs of one
 * repository take turns on its mirror.
 */
public final class OrderPlanner {

  private final PdsAccess access;
  private final RunPlanner planner;
  private final Path cacheDir;
  private final Clock clock;
  private final Map<String, Object> mirrorLocks = new ConcurrentHashMap<>();

  public OrderPlanner(PdsAccess access, RunPlanner planner, Path cacheDir, Clock clock) {
    this.access = access;
    this.planner = planner;
    this.cacheDir = cacheDir;
    this.clock = clock;
  }

  /** The run {@code order} names, queued; its spec is made when it gets its job. */
  public PlannedRun plan(RunOrder order) {
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
            false);
    return new PlannedRun(order.label(), request, queued, () -> spec(order), order);
  }

  private RunSpec spec(RunOrder order) throws PlannedRun.PrepareException {
    Watched.Found found;
    try {
      found = access.find(order.label());
    } catch (IOException | RuntimeException e) {
      throw new PlannedRun.PrepareException(
          order.label() + " could not be read from its owner's PDS: " + e.getMessage());
    }
    Watched repo = found.repo();
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
    Mirror mirror;
    Workflow w;
    try {
      synchronized (mirrorLocks.computeIfAbsent(repo.stateKey(), k -> new Object())) {
        mirror = Mirror.open(cacheDir, repo.id().ownerDid(), repo.id().repoKey());
        if (!mirror.git().has(order.commit())) {
          // The snapshot the repository was just read from: its refs are read once per run.
          mirror.fetch(
              found.snapshot(), access.fetcher(access.ownerOf(repo)), List.of(order.commit()));
        }
      }
      WorkflowSet set = planner.workflows(mirror.git(), order.commit());
      w =
          set.workflow(order.workflow())
              .orElseThrow(
                  () ->
                      new PlannedRun.PrepareException(
                          "workflow "
                              + order.workflow()
                              + " is not at "
                              + order.commit()
                              + " any more: "
                              + set.error(order.workflow())
                                  .map(e -> e.field() + ": " + e.problem())
                                  .orElse("no such file")));
    } catch (IOException e) {
      throw new PlannedRun.PrepareException(
          order.commit() + " of " + order.label() + " could not be fetched: " + e.getMessage());
    }
    PlannedRun run =
        planner.push(
            repo,
            mirror.dir(),
            w,
            order.ref(),
            order.commit(),
            order.base(),
            order.runClass(),
            order.asked(),
            clock.instant());
    if (!run.rkey().equals(order.checkKey())) {
      throw new PlannedRun.PrepareException(
          "the run's check key is " + run.rkey() + " here, " + order.checkKey() + " when queued");
    }
    return run.prepare().prepare().withRunKey(order.checkKey());
  }
}
