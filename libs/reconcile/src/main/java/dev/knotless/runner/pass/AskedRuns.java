package dev.knotless.runner.pass;

import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.plan.AskedLedger;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.reconcile.AskedRun;
import dev.knotless.runner.run.InvalidVariablesException;
import dev.knotless.runner.run.StepEnvironment;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.state.WantedRun;
import dev.knotless.runner.workflow.Step;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowError;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files the runs asked for by name at one ref, at its current target: a workflow that may run by
 * name there runs in the ASKED class with its variables; one that is not there, does not parse, may
 * not run by name at the ref, or is given variables that cannot be given is filed as an error check
 * saying so. Each check is filed before any of the ref's asked runs is handed on. Thread-safe.
 */
public final class AskedRuns {

  private static final Logger LOG = LoggerFactory.getLogger(AskedRuns.class);

  private final RunPlanner planner;
  private final CheckFiler filer;
  private final AskedLedger ledger;

  public AskedRuns(RunPlanner planner, CheckFiler filer, AskedLedger ledger) {
    this.planner = planner;
    this.filer = filer;
    this.ledger = ledger;
  }

  /** Files the asked runs at a ref and hands them to {@code sink}. */
  public void file(
      Watched repo, Mirror mirror, AskedRun asked, PausedOwners paused, RunSink sink, Instant now)
      throws IOException {
    String ref = asked.ref().name();
    String commit = asked.ref().target();
    WorkflowSet set = planner.workflows(mirror.git(), commit);
    Optional<String> pausedWhy = paused.reasonFor(repo.id().ownerDid());
    List<PlannedRun> runs = new ArrayList<>();
    for (WantedRun wanted : asked.runs()) {
      String name = wanted.workflow();
      String key = RunPlanner.pushKey(repo, ref, commit, name);
      Optional<Workflow> w =
          set.workflows().stream().filter(x -> x.name().equals(name)).findFirst();
      String error = null;
      if (pausedWhy.isPresent()) {
        error = PausedOwners.message(pausedWhy.get());
      } else if (w.isEmpty()) {
        error = notThere(set, name, commit);
      } else if (!w.get().mayRunByName(ref)) {
        error =
            name
                + " may not run by name at "
                + ref
                + ": it runs on no push there and its on.asked.refs do not match";
      } else {
        try {
          StepEnvironment.validate(wanted.variables());
        } catch (InvalidVariablesException e) {
          error = e.getMessage();
        }
      }
      if (error != null) {
        List<String> steps =
            w.map(x -> x.steps().stream().map(Step::name).toList()).orElse(List.of());
        fileError(repo, key, ref, commit, name, steps, error, now);
        continue;
      }
      PlannedRun run =
          planner.push(
              repo,
              mirror.dir(),
              w.get(),
              ref,
              commit,
              null,
              RunClass.ASKED,
              wanted.variables(),
              now);
      filer.file(run.rkey(), run.check());
      ledger.remember(run.request().runId(), new AskedLedger.Entry(repo.stateKey(), ref, wanted));
      runs.add(run);
    }
    LOG.info(
        "{}: {} at {}: {} asked for by name, {} to run",
        repo.label(),
        ref,
        commit.substring(0, 12),
        asked.runs().size(),
        runs.size());
    runs.forEach(sink::submit);
  }

  private static String notThere(WorkflowSet set, String name, String commit) {
    for (WorkflowError e : set.errors()) {
      if (e.name().equals(name)) {
        return "workflow " + name + " does not load at " + commit + ": " + e.message();
      }
    }
    return "no workflow named " + name + " in .knotless/workflows/ at " + commit;
  }

  private void fileError(
      Watched repo,
      String key,
      String ref,
      String commit,
      String name,
      List<String> steps,
      String error,
      Instant now)
      throws XrpcException {
    LOG.warn("{}: {} asked for by name at {}: {}", repo.label(), name, ref, error);
    filer.file(
        key,
        RunPlanner.ended(
            repo,
            ref,
            commit,
            name,
            steps,
            CheckStatus.ERROR,
            StepResult.Status.SKIPPED,
            error,
            now));
  }
}
