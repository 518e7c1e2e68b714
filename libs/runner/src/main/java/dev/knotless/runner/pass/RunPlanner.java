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
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.exec.cache.CacheRules;
import dev.knotless.runner.mask.SecretMask;
import dev.knotless.runner.queue.RunOrder;
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
import dev.knotless.runner.workflow.Step;
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
  }

  private static final AtomicLong RUNS = new AtomicLong();

  private final Settings settings;
  private final WriteBack writeBack;
  private final dev.knotless.runner.sealed.OwnerSecrets ownerSecrets;

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
            rkey);
    if (runClass == RunClass.ASKED && w.asked() != null && w.asked().writesBack()) {
      // A scheduler that plans it again from the order writes back with its own WriteBack, from
      // the pod's checkout copied back (PodExecutor).
      prepare = writingBack(prepare, repo, ref, commit, w);
    }
    return new PlannedRun(repo.label(), request, queued, prepare, order);
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
        new RunRequest(
            rkey + "#" + RUNS.incrementAndGet(),
            repo.id().ownerDid(),
            repo.stateKey(),
            p.uri(),
            SubjectKind.PULL,
            w.name(),
            p.head() + " " + p.base(),
            runClass,
            w.superseded(),
            false);
    PlannedRun.Preparer prepare = () -> pullSpec(repo, mirror, w, p, rkey, trusted);
    return new PlannedRun(repo.label(), request, queued, prepare);
  }

  /**
   * A merge-queue batch's run of {@code w}, queued: checked out at the batch's {@code tip} built on
   * {@code base} of {@code baseRef}, told the tip as {@code KNOTLESS_RUN_SHA}, the base as {@code
   * KNOTLESS_RUN_BASE} and the branch as {@code KNOTLESS_RUN_REF}; no secrets, and no step matches
   * a ref, as in a pull's run. {@code trusted} when every pull in it is.
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
        new RunRequest(
            rkey + "#" + RUNS.incrementAndGet(),
            repo.id().ownerDid(),
            repo.stateKey(),
            "queue " + baseRef,
            SubjectKind.BATCH,
            w.name(),
            tip + " " + base,
            runClass,
            w.superseded(),
            false);
    PullSubject p = new PullSubject("queue " + baseRef, baseRef, tip, baseRef, base, tip);
    PlannedRun.Preparer prepare = () -> pullSpec(repo, mirror, w, p, rkey, trusted);
    return new PlannedRun(repo.label(), request, queued, prepare);
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
        .withImage(w.image() == null ? "" : w.image())
        .withTrustedCode(false)
        .withCaches(
            new CacheRequest(
                // The owner's DID and the record key: a rename keeps the caches.
                repo.stateKey(),
                w.name(),
                w.cache(),
                CacheRules.pull(!w.cache().isEmpty(), trusted, !w.secrets().isEmpty())))
        .withEnv(new LinkedHashMap<>(env.variables()))
        .withPreamble(preamble)
        .withLimits(
            new TimeLimits(
                settings.stepTimeout(),
                settings.runTimeout() == null ? Duration.ZERO : settings.runTimeout(),
                false));
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
    List<ExecStep> steps = new ArrayList<>();
    for (Step s : w.steps()) {
      steps.add(ExecStep.of(s, ref, env.secrets().keySet(), w.hasSharedSteps()));
    }
    Map<String, String> all = new LinkedHashMap<>(env.variables());
    all.putAll(env.secrets());
    boolean byName = runClass == RunClass.ASKED;
    return RunSpec.of(mirror, commit, steps)
        .withImage(w.image() == null ? "" : w.image())
        // A push to a repository of an owner named with --trust is code that owner vouches for.
        .withTrustedCode(settings.trusted().contains(repo.id().ownerDid()))
        // Only a push to the default branch (class MAIN; a run asked for by name is ASKED)
        // promotes.
        .withCaches(
            new CacheRequest(
                // The owner's DID and the record key: a rename keeps the caches.
                repo.stateKey(),
                w.name(),
                w.cache(),
                CacheRules.push(!w.cache().isEmpty(), runClass == RunClass.MAIN)))
        .withEnv(all)
        .withPreamble(preamble)
        .withFilter(OutputFilter.masking(SecretMask.of(env.secrets().values())))
        .withLimits(
            new TimeLimits(
                settings.stepTimeout(),
                settings.runTimeout() == null ? Duration.ZERO : settings.runTimeout(),
                byName));
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
      OwnerGrants.Opened opened = ownerSecrets.open(repo, rest);
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
