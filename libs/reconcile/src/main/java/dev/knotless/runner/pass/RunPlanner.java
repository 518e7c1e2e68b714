package dev.knotless.runner.pass;

import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.exec.AfterSteps;
import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.OutputFilter;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.TimeLimits;
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.exec.cache.CacheRules;
import dev.knotless.runner.mask.SecretMask;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.plan.RunOrder;
import dev.knotless.runner.run.AskedRunHeader;
import dev.knotless.runner.run.InvalidVariablesException;
import dev.knotless.runner.run.RunContext;
import dev.knotless.runner.run.StepEnvironment;
import dev.knotless.runner.schedule.RunClass;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.secrets.Grants;
import dev.knotless.runner.secrets.OwnerGrants;
import dev.knotless.runner.secrets.SecretGrant;
import dev.knotless.runner.secrets.SecretsFile;
import dev.knotless.runner.secrets.SecretsFileException;
import dev.knotless.runner.secrets.SecretsFiles;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.merge.CommitFiles;
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

    /** A run's time limits; {@code byName} for a run asked for by name. */
    TimeLimits limits(boolean byName) {
      return new TimeLimits(stepTimeout, runTimeout == null ? Duration.ZERO : runTimeout, byName);
    }
  }

  private static final AtomicLong RUNS = new AtomicLong();

  private final Settings settings;
  private final PullRunPlanner pulls;
  private final WriteBack writeBack;
  private final dev.knotless.runner.sealed.OwnerSecrets ownerSecrets;

  /**
   * The planner of a runner reading through {@code access}: write-backs made in the runner's own
   * account, shared steps read from their owners' heads into the storage cache, and sealed secrets
   * opened with {@code ownerSecrets} (null: only the operator's file grants).
   */
  public static RunPlanner forRunner(
      Settings settings,
      PdsAccess access,
      dev.knotless.runner.sealed.OwnerSecrets ownerSecrets,
      java.time.Clock clock) {
    return new RunPlanner(
            settings, new WriteBack(access.runner(), access.cache(), clock), ownerSecrets)
        .withSharedSteps(new SharedStepFiles(access.heads(), access.cache().dir()));
  }

  public RunPlanner(Settings settings) {
    this(settings, null);
  }

  /** As {@link #RunPlanner(Settings)}, writing back with {@code writeBack} (null: refused). */
  public RunPlanner(Settings settings, WriteBack writeBack) {
    this(settings, writeBack, null);
  }

  /**
   * As above, opening what owners sealed to this runner with {@code ownerSecrets} for the names the
   * operator's file does not grant (null: only the file grants).
   */
  public RunPlanner(
      Settings settings,
      WriteBack writeBack,
      dev.knotless.runner.sealed.OwnerSecrets ownerSecrets) {
    this.settings = settings;
    this.pulls = new PullRunPlanner(settings);
    this.writeBack = writeBack;
    this.ownerSecrets = ownerSecrets;
  }

  private volatile SharedStepFiles sharedSteps;

  /** Puts shared steps in place with {@code files}; without, a {@code uses} step is an error. */
  public RunPlanner withSharedSteps(SharedStepFiles files) {
    this.sharedSteps = files;
    return this;
  }

  /** The workflows at {@code commit}, with their shared steps in place. */
  public WorkflowSet workflows(dev.knotless.storage.git.Git git, String commit)
      throws java.io.IOException {
    return sharedSteps != null
        ? sharedSteps.load(git, commit)
        : SharedStepFiles.unread(CommitFiles.workflowSet(git, commit));
  }

  /** Plans the runs of pulls and merge-queue batches, with these settings. */
  public PullRunPlanner pulls() {
    return pulls;
  }

  /**
   * The request of a run of {@code w} filing check {@code rkey}, about {@code subject} at {@code
   * commit}. Two runs may file one check (a rerun at the same commit): its id keeps them apart.
   */
  static RunRequest request(
      Watched repo,
      String rkey,
      String subject,
      SubjectKind kind,
      Workflow w,
      String commit,
      RunClass runClass) {
    return new RunRequest(
        rkey + "#" + RUNS.incrementAndGet(),
        repo.id().ownerDid(),
        repo.stateKey(),
        subject,
        kind,
        w.name(),
        commit,
        runClass,
        w.superseded(),
        repo.privateRepo());
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

  /** A push's check of {@code workflow} at {@code commit}, as first filed (queued). */
  public static CheckRecord pushCheck(
      String repoUri, String ref, String commit, String workflow, Instant now) {
    return new CheckRecord(
        repoUri,
        ref,
        commit,
        null,
        null,
        workflow,
        CheckStatus.QUEUED,
        now,
        null,
        null,
        List.of(),
        null,
        List.of(),
        null);
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
    CheckRecord queued = pushCheck(repo.repoUri(), ref, commit, w.name(), now);
    RunRequest request = request(repo, rkey, ref, SubjectKind.REF, w, commit, runClass);
    PlannedRun.Preparer prepare =
        () -> spec(repo, mirror, w, ref, commit, base, rkey, asked, runClass);
    RunOrder order =
        new RunOrder(
            repo.label(),
            repo.id().ownerDid(),
            repo.id().repoKey(),
            ref,
            commit,
            base,
            w.name(),
            runClass,
            w.superseded(),
            asked,
            rkey,
            repo.privateRepo());
    if (runClass == RunClass.ASKED && w.asked() != null && w.asked().writesBack()) {
      // A scheduler that plans it again from the order writes back with its own WriteBack, from
      // the pod's checkout copied back (PodExecutor).
      prepare = writingBack(prepare, repo, ref, commit, w);
    }
    return new PlannedRun(repo.label(), request, queued, prepare, order);
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
      Map<String, SecretGrant> file = readSecrets().grants(repo.label());
      Map<String, SecretGrant> owner = ownerGrants(repo, w, file, preamble);
      Grants.Result granted = Grants.resolve(w.secrets(), repo.label(), ref, false, file, owner);
      secrets.putAll(granted.values());
      preamble.addAll(granted.logLines());
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
    List<ExecStep> steps =
        ExecStep.forRun(w.steps(), ref, env.secrets().keySet(), w.hasSharedSteps());
    Map<String, String> all = new LinkedHashMap<>(env.variables());
    all.putAll(env.secrets());
    boolean byName = runClass == RunClass.ASKED;
    return RunSpec.of(mirror, commit, steps)
        .withAnyOption(dev.knotless.runner.exec.ContainerImage.named(w.image()))
        // A push to a repository of an owner named with --trust is code that owner vouches for.
        .withTrustedCode(settings.trusted().contains(repo.id().ownerDid()))
        // Only a push to the default branch (class MAIN; a run asked for by name is ASKED)
        // promotes.
        .withOption(
            new CacheRequest(
                // The owner's DID and the record key: a rename keeps the caches.
                repo.stateKey(),
                w.name(),
                w.cache(),
                CacheRules.push(!w.cache().isEmpty(), runClass == RunClass.MAIN)))
        .withEnv(all)
        .withPreamble(preamble)
        .withFilter(OutputFilter.masking(SecretMask.of(env.secrets().values())))
        .withLimits(settings.limits(byName));
  }

  /** The owner's sealed grants of the names the file does not grant; lines for those that fail. */
  private Map<String, SecretGrant> ownerGrants(
      Watched repo, Workflow w, Map<String, SecretGrant> file, List<String> preamble)
      throws PlannedRun.PrepareException {
    List<String> rest = w.secrets().stream().filter(n -> !file.containsKey(n)).toList();
    if (rest.isEmpty() || ownerSecrets == null) {
      return Map.of();
    }
    try {
      OwnerGrants.Opened opened = ownerSecrets.open(repo.id(), rest);
      preamble.addAll(opened.logLines());
      return opened.grants();
    } catch (java.io.IOException e) {
      throw new PlannedRun.PrepareException(e.getMessage());
    }
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
