package dev.knotless.runner.pass;

import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.engine.PlannedRun;
import dev.knotless.runner.exec.AfterSteps;
import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.OutputFilter;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.TimeLimits;
import dev.knotless.runner.mask.SecretMask;
import dev.knotless.runner.run.AskedRunHeader;
import dev.knotless.runner.run.InvalidVariablesException;
import dev.knotless.runner.run.RunContext;
import dev.knotless.runner.run.StepEnvironment;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.secrets.SecretGrant;
import dev.knotless.runner.secrets.SecretsFile;
import dev.knotless.runner.secrets.SecretsFileException;
import dev.knotless.runner.secrets.SecretsFiles;
import dev.knotless.runner.workflow.Step;
import dev.knotless.runner.workflow.Workflow;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns a workflow due at a commit into a check and a run: the check as first filed, and, for a
 * run, how its steps are prepared when it gets its job (secrets are read then, never before).
 * Stateless; safe to share.
 */
public final class RunPlanner {

  /**
   * What every run of this runner shares.
   *
   * @param hostEnvironment the runner's own variables steps see: a few under the shell executor,
   *     none under docker, whose containers keep their image's environment
   * @param trusted the owners named with {@code --trust}: a push to their repository runs with
   *     {@code --trusted-runtime}
   */
  public record Settings(
      Path secretsFile,
      Duration stepTimeout,
      Duration runTimeout,
      Map<String, String> hostEnvironment,
      java.util.Set<String> trusted) {

    public Settings {
      trusted = java.util.Set.copyOf(trusted);
    }

    /** Settings with no owner trusted. */
    public Settings(
        Path secretsFile,
        Duration stepTimeout,
        Duration runTimeout,
        Map<String, String> hostEnvironment) {
      this(secretsFile, stepTimeout, runTimeout, hostEnvironment, java.util.Set.of());
    }
  }

  private static final AtomicLong RUNS = new AtomicLong();

  private final Settings settings;
  private final WriteBack writeBack;

  public RunPlanner(Settings settings) {
    this(settings, null);
  }

  /** As {@link #RunPlanner(Settings)}, writing back with {@code writeBack} (null: refused). */
  public RunPlanner(Settings settings, WriteBack writeBack) {
    this.settings = settings;
    this.writeBack = writeBack;
  }

  /** The record key of a push's check. */
  public static String pushKey(Watched repo, String ref, String commit, String workflow) {
    return CheckKeys.push(repo.id().ownerDid(), repo.id().repoKey(), ref, commit, workflow);
  }

  /** A check filed already ended: every step with the same status and note. */
  public static CheckRecord ended(
      Watched repo,
      String ref,
      String commit,
      String workflow,
      List<String> stepNames,
      CheckStatus status,
      StepResult.Status steps,
      String note,
      Instant now) {
    List<StepResult> results = new ArrayList<>();
    for (String s : stepNames) {
      results.add(new StepResult(s, steps, null, null, null));
    }
    return new CheckRecord(
        repo.repoUri(),
        ref,
        commit,
        null,
        null,
        workflow,
        status,
        now,
        null,
        now,
        results,
        null,
        List.of(),
        note);
  }

  /** A push's run of {@code w} at {@code commit}, queued. */
  public PlannedRun push(
      Watched repo,
      Path mirror,
      Workflow w,
      String ref,
      String commit,
      String base,
      RunClass runClass,
      Map<String, String> asked,
      Instant now) {
    String rkey = pushKey(repo, ref, commit, w.name());
    CheckRecord queued =
        new CheckRecord(
            repo.repoUri(),
            ref,
            commit,
            null,
            null,
            w.name(),
            CheckStatus.QUEUED,
            now,
            null,
            null,
            List.of(),
            null,
            List.of(),
            null);
    RunRequest request =
        new RunRequest(
            // Two runs may file one check (a rerun at the same commit): ids keep them apart.
            rkey + "#" + RUNS.incrementAndGet(),
            repo.id().ownerDid(),
            repo.stateKey(),
            ref,
            SubjectKind.REF,
            w.name(),
            commit,
            runClass,
            w.superseded(),
            false);
    PlannedRun.Preparer prepare =
        () -> spec(repo, mirror, w, ref, commit, base, rkey, asked, runClass);
    if (runClass == RunClass.ASKED && w.asked() != null && w.asked().writesBack()) {
      prepare = writingBack(prepare, repo, ref, commit, w);
    }
    return new PlannedRun(repo.label(), request, queued, prepare);
  }

  private PlannedRun.Preparer writingBack(
      PlannedRun.Preparer steps, Watched repo, String ref, String commit, Workflow w) {
    AfterSteps hook =
        writeBack != null
            ? writeBack.hook(repo, ref, commit, w.asked().commit())
            : (checkout, result) -> result;
    return new PlannedRun.Preparer() {
      @Override
      public RunSpec prepare() throws PlannedRun.PrepareException {
        return steps.prepare();
      }

      @Override
      public AfterSteps afterSteps() {
        return hook;
      }
    };
  }

  private RunSpec spec(
      Watched repo,
      Path mirror,
      Workflow w,
      String ref,
      String commit,
      String base,
      String rkey,
      Map<String, String> asked,
      RunClass runClass)
      throws PlannedRun.PrepareException {
    List<String> preamble = new ArrayList<>();
    Map<String, String> secrets = new LinkedHashMap<>();
    if (!w.secrets().isEmpty()) {
      SecretsFile file = readSecrets();
      Map<String, SecretGrant> grants = file.grants(repo.label());
      for (String name : w.secrets()) {
        SecretGrant g = grants.get(name);
        if (g != null && g.reaches(ref)) {
          secrets.put(name, g.value());
        } else {
          preamble.add("==> " + name + " is not granted to " + repo.label() + " at " + ref);
        }
      }
    }
    RunContext context =
        new RunContext(
            repo.label(), ref, commit, base == null ? "" : base, "", w.name(), rkey, rkey);
    StepEnvironment.Built env;
    try {
      env =
          StepEnvironment.build(
              w,
              context,
              secrets,
              asked,
              StepEnvironment.hostVariables(settings.hostEnvironment()));
    } catch (InvalidVariablesException e) {
      throw new PlannedRun.PrepareException(e.getMessage());
    }
    if (runClass == RunClass.ASKED) {
      // What the run was asked with goes first, masked as the rest of the log is.
      preamble.addAll(0, AskedRunHeader.lines(w.name(), ref, asked, env.dropped()));
    }
    List<ExecStep> steps = new ArrayList<>();
    for (Step s : w.steps()) {
      steps.add(ExecStep.of(s, ref));
    }
    Map<String, String> all = new LinkedHashMap<>(env.variables());
    all.putAll(env.secrets());
    boolean byName = runClass == RunClass.ASKED;
    return RunSpec.of(mirror, commit, steps)
        .withImage(w.image() == null ? "" : w.image())
        // A push to a repository of an owner named with --trust is code that owner vouches for.
        .withTrustedCode(settings.trusted().contains(repo.id().ownerDid()))
        .withEnv(all)
        .withPreamble(preamble)
        .withFilter(OutputFilter.masking(SecretMask.of(env.secrets().values())))
        .withLimits(
            new TimeLimits(
                settings.stepTimeout(),
                settings.runTimeout() == null ? Duration.ZERO : settings.runTimeout(),
                byName));
  }

  private SecretsFile readSecrets() throws PlannedRun.PrepareException {
    if (settings.secretsFile() == null) {
      return SecretsFile.empty();
    }
    try {
      return SecretsFiles.read(settings.secretsFile());
    } catch (SecretsFileException e) {
      throw new PlannedRun.PrepareException(e.getMessage());
    }
  }
}
