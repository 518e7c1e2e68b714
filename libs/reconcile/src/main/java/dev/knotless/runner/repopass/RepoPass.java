package dev.knotless.runner.repopass;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pass.Discovered;
import dev.knotless.runner.pass.PassMirror;
import dev.knotless.runner.pass.PassTaking;
import dev.knotless.runner.pass.PassTrace;
import dev.knotless.runner.pass.PushChecks;
import dev.knotless.runner.pass.Reruns;
import dev.knotless.runner.pass.RunPlanner;
import dev.knotless.runner.pass.RunSink;
import dev.knotless.runner.pass.SnapshotReaders;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.reconcile.AskedRun;
import dev.knotless.runner.reconcile.DuePlanner;
import dev.knotless.runner.reconcile.DueRef;
import dev.knotless.runner.reconcile.KeyCheck;
import dev.knotless.runner.reconcile.NamesRunner;
import dev.knotless.runner.reconcile.PassPlan;
import dev.knotless.runner.reconcile.RefState;
import dev.knotless.runner.reconcile.RepoView;
import dev.knotless.runner.reconcile.Watch;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.RangeScanner;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reconcile pass of one repository, as a chain of named steps: read the snapshot, check the
 * key, plan what is due, sync the mirror, load each due commit's workflows, file every check of a
 * commit, then hand its runs to the job pool and record the ref's generation.
 *
 * <p>What runs is read from the owner's PDS, never from the event that rang the door, so a forged
 * frame can make the runner read but not run. Thread-safe for passes of different repositories; the
 * doors never run two passes of one repository at once.
 */
public final class RepoPass {

  private static final Logger LOG = LoggerFactory.getLogger(RepoPass.class);

  /** What the pass found, for the caller to act on. */
  public enum Outcome {
    /** Read, and whatever was due filed. */
    DONE,
    /** The repository was deleted: stop watching it; what the runner kept of it was cleared. */
    DELETED,
    /**
     * A repository found with {@code --discover} no longer names the runner, is archived, or is
     * gone under its name: stop watching it; what it was running finishes.
     */
    LEFT,
    /**
     * A repository found with {@code --discover} was renamed (its old name redirects, or names
     * another repository while its key lives on): find it again by its key and watch it under its
     * new name, then pass it; nothing was filed.
     */
    RENAMED
  }

  private final Function<Watched, ? extends dev.knotless.atproto.RecordStore> ownerClients;
  private final SnapshotReaders readers;
  private final StateStore state;
  private final CheckFiler filer;
  private final RunPlanner planner;
  private final RunSink sink;
  private final Path cacheDir;
  private final PausedSource paused;
  private final Clock clock;
  private final PassExtras extras;
  private final PassTaking taking;
  private final PushChecks pushes;
  private final PrivatePulls privatePulls = new PrivatePulls();

  /** The name each watched repository was last seen renamed to, so a rename is logged once. */
  private final java.util.Map<String, String> renamedTo =
      new java.util.concurrent.ConcurrentHashMap<>();

  private volatile Consumer<String> removeCaches = repoKey -> {};
  private Discovered discovered = Discovered.NONE;
  private String runnerDid;
  private volatile PassTrace trace = PassTrace.NONE;

  /** The operator's paused owners, read again on every pass. */
  @FunctionalInterface
  public interface PausedSource {
    /**
     * The paused owners now.
     *
     * @throws IOException when the file is not such an object, which fails the pass
     */
    PausedOwners read() throws IOException;
  }

  /**
   * A pass reading owners' PDSes through {@code ownerClients}, filing through {@code filer} and
   * handing runs to {@code sink}; {@code extras} adds reruns, runs by name, pruning and deletion
   * ({@link PassExtras#none()} leaves them out).
   */
  public RepoPass(
      Function<Watched, ? extends dev.knotless.atproto.RecordStore> ownerClients,
      SnapshotReaders readers,
      StateStore state,
      CheckFiler filer,
      RunPlanner planner,
      RunSink sink,
      Path cacheDir,
      PausedSource paused,
      Clock clock,
      PassExtras extras) {
    this.extras = extras;
    this.taking = new PassTaking(filer, state);
    this.ownerClients = ownerClients;
    this.readers = readers;
    this.state = state;
    this.filer = filer;
    this.planner = planner;
    this.sink = sink;
    this.cacheDir = cacheDir;
    this.paused = paused;
    this.clock = clock;
    this.pushes = new PushChecks(filer, planner, taking, w -> extras.runs(w), sink, clock);
  }

  /**
   * Has a push taking a pull's or batch's pass promote the cache layers it kept, through {@code
   * promote} (the docker executor's caches), which takes the pass's check and returns lines for the
   * log; and a repository found deleted lose its caches through {@code remove}, given its state
   * key. Call before the first pass.
   */
  public RepoPass withCaches(
      java.util.function.Function<String, List<String>> promote, Consumer<String> remove) {
    taking.promotingKeptLayers(promote);
    this.removeCaches = remove;
    return this;
  }

  /**
   * Has a pull found closed unmerged tell {@code closed} its AT-URI ({@link
   * dev.knotless.runner.pullpass.PullPass#onClosed}).
   */
  public RepoPass onClosedPulls(Consumer<String> closed) {
    if (extras.pulls() != null) {
      extras.pulls().onClosed(closed);
    }
    return this;
  }

  /**
   * Has passes of repositories {@code discovered} says were found naming {@code runnerDid} leave
   * them once their record stops naming it, and run their default branch's tip once when first
   * watched. Call before the first pass.
   */
  public RepoPass discovering(Discovered discovered, String runnerDid) {
    this.discovered = discovered;
    this.runnerDid = runnerDid;
    return this;
  }

  /** Has passes tell {@code trace} when they reach each stage (a benchmark's timings). */
  public RepoPass tracing(PassTrace trace) {
    this.trace = trace;
    pushes.tracing(trace);
    return this;
  }

  /** Runs one pass; {@code stage} hears which step it is at, for the slow-pass log. */
  public Outcome run(Watched repo, Consumer<String> stage) throws IOException {
    return run(repo, stage, false);
  }

  /**
   * Runs one pass; {@code stage} hears which step it is at, for the slow-pass log. With {@code
   * pushed} (an event said a ref changed) the newest packs are read beside the refs, in the same
   * round trip, as the push's commit is most likely in one of them; a sweep reads none.
   */
  public Outcome run(Watched repo, Consumer<String> stage, boolean pushed) throws IOException {
    trace.now(PassTrace.Stage.PASS, repo.stateKey());
    try {
      return pass(repo, stage, pushed);
    } catch (IOException e) {
      String gone = dev.knotless.runner.pass.SpaceLeaving.why(ownerClients.apply(repo), e);
      if (gone != null) {
        LOG.warn("{}: {}; no longer watching it", repo.label(), gone);
        return Outcome.LEFT;
      }
      // Named by its label, which the doors' log line of a failed pass does not know.
      String why = String.valueOf(e.getMessage());
      if (why.startsWith(repo.label() + ": ")) {
        why = why.substring(repo.label().length() + 2);
      }
      throw new IOException(repo.label() + ": pass failed: " + why, e);
    } finally {
      // A sync that indexed a pack with git started its history check ahead; it may be unused.
      Mirror.endPrestarted(cacheDir, repo.id().ownerDid(), repo.id().repoKey());
    }
  }

  private Outcome pass(Watched repo, Consumer<String> stage, boolean pushed) throws IOException {
    dev.knotless.atproto.RecordStore owner = ownerClients.apply(repo);
    dev.knotless.runner.pullpass.PullPass.Listing pulls = null;
    // The appview indexes no private repository: its pulls and queue are not read, and said so.
    XrpcClient ownerPds = owner instanceof XrpcClient x ? x : null;
    if (extras.pulls() != null && ownerPds == null) {
      privatePulls.skipped(repo, extras.queue() != null);
    }
    if (extras.pulls() != null && ownerPds != null) {
      // Before the refs: a pull opened after its base moved is never checked at the older base.
      stage.accept("listing pulls from the appview");
      pulls = extras.pulls().list(repo);
    }
    // Read once a pass: the rerun requests' listing starts after the newest acted on.
    Optional<RepoState> known = state.load(repo.stateKey());
    stage.accept("reading the repository record and refs");
    // The rerun requests go out beside the snapshot's reads: one round trip for all.
    java.util.concurrent.CompletableFuture<List<dev.knotless.runner.reconcile.RerunRequest>>
        reruns =
            extras.reruns()
                ? Reruns.readBeside(owner, repo, known.map(RepoState::rerun).orElse(""))
                : null;
    Snapshot snap =
        readers
            .reader(owner)
            .read(repo.address(), pushed ? SnapshotReader.Packs.NEWEST : SnapshotReader.Packs.NONE);

    String current = snap.key().orElse(null);
    if (ownerPds == null
        && repo.id().repoKey().equals(current)
        && NamesRunner.judge(filer.runnerDid(), snap.repo().raw()) == NamesRunner.NOT_NAMED) {
      // A private repository is watched only while its record in the space names the runner.
      LOG.warn(
          "{}: private, and {}; no longer watching it", repo.label(), NamesRunner.NOT_NAMED.why());
      return Outcome.LEFT;
    }
    boolean found = discovered.test(repo.id());
    if (found) {
      boolean sameKey = repo.id().repoKey().equals(current);
      if (sameKey
          ? snap.renamedFrom() != null
          : OwnerKeys.exists(owner, repo.id().ownerDid(), repo.id().repoKey())) {
        // Found by its name, so watched by its new one (runner.md): the caller finds it again.
        return Outcome.RENAMED;
      }
      NamesRunner names =
          repo.id().repoKey().equals(current)
              ? NamesRunner.judge(runnerDid, snap.repo().raw())
              : NamesRunner.NO_RECORD;
      if (names != NamesRunner.YES) {
        LOG.info("{}: {}; no longer watching it", repo.label(), names.why());
        return Outcome.LEFT;
      }
    }
    if (!repo.id().repoKey().equals(current)) {
      stage.accept("looking for the watched key in the owner's account");
      boolean stillThere = OwnerKeys.exists(owner, repo.id().ownerDid(), repo.id().repoKey());
      KeyCheck check = KeyCheck.compare(repo.label(), repo.id().repoKey(), current, stillThere);
      if (check instanceof KeyCheck.Deleted) {
        if (extras.deletion() != null) {
          stage.accept("clearing the deleted repository's checks and grants");
          extras.deletion().clear(repo);
        }
        // Its caches' bases, kept layers and marks, found by the hash of its name.
        removeCaches.accept(repo.stateKey());
        state.update(repo.stateKey(), s -> RepoState.empty());
        return Outcome.DELETED;
      }
      if (check instanceof KeyCheck.Changed c) {
        throw new IOException(c.message());
      }
    }

    if (snap.renamedFrom() != null
        && !snap.address().name().equals(renamedTo.put(repo.stateKey(), snap.address().name()))) {
      LOG.info(
          "{}: renamed to {}; the old name redirects there, and it is still watched by its key {}",
          repo.label(),
          snap.address().name(),
          repo.id().repoKey());
    }
    RepoView view = view(repo, snap);
    Watch watch = known.isPresent() ? Watch.KNOWN : found ? Watch.FIRST_DISCOVERED : Watch.FIRST;
    if (extras.reruns()) {
      // New rerun requests act first, so the plan sees the refs they forget and the runs wanted.
      stage.accept("reading rerun requests");
      known =
          Optional.of(
              Reruns.apply(
                  RangeScanner.join(reruns),
                  repo,
                  state,
                  known.orElse(RepoState.empty()),
                  watch != Watch.KNOWN,
                  extras.pulls() != null));
    }
    trace.now(PassTrace.Stage.SNAPSHOT, repo.stateKey());
    PassPlan plan = DuePlanner.plan(view, known.orElse(RepoState.empty()), watch);
    endMovedOn(repo, plan);
    if (plan.baseline()) {
      state.update(repo.stateKey(), plan::settle);
      LOG.info(
          "{}: first pass: {} refs taken as they are, {}",
          repo.label(),
          view.refs().size(),
          plan.due().isEmpty() ? "nothing run" : "but for the default branch's tip, run once");
    } else if (plan.settles()) {
      // Otherwise (an idle pass) settling changes nothing: the state is not locked or read again.
      state.update(repo.stateKey(), plan::settle);
    }
    boolean askedNow = extras.asked() != null && !plan.asked().isEmpty();
    boolean filesRefs = !extras.pullsOnly() && (!plan.due().isEmpty() || askedNow);
    PausedOwners pausedNow = filesRefs || extras.pulls() != null ? paused.read() : null;
    PassMirror mirror = new PassMirror(cacheDir, repo, () -> readers.fetcher(owner), snap);
    if (extras.pullsOnly()) {
      // Another runner runs this repository's pushes: here they are only recorded as seen.
      for (DueRef due : plan.due()) {
        state.update(repo.stateKey(), s -> PassPlan.filed(s, due));
      }
    } else if (filesRefs) {
      stage.accept("syncing the mirror");
      Mirror synced = mirror.begun();
      Mirror.Syncing syncing = mirror.syncing();
      trace.now(PassTrace.Stage.MIRROR, repo.stateKey());
      for (DueRef due : plan.due()) {
        stage.accept("filing the checks of " + due.ref().name());
        pushes.file(repo, synced, syncing, view.defaultRef(), due, pausedNow);
        state.update(repo.stateKey(), s -> PassPlan.filed(s, due));
      }
      syncing.await();
      if (askedNow) {
        for (AskedRun asked : plan.asked()) {
          stage.accept("filing the runs asked for at " + asked.ref().name());
          extras.asked().file(repo, synced, asked, pausedNow, sink, clock.instant());
          state.update(repo.stateKey(), s -> PassPlan.askedFiled(s, asked));
        }
      }
    }
    if (extras.pulls() != null && ownerPds != null) {
      var queue = extras.queue();
      var queued = queue == null ? null : queue.read(repo, ownerPds, snap);
      // After the refs: a base that moved in this pass is synced, and its pulls run on it.
      var open =
          extras
              .pulls()
              .run(
                  repo,
                  pulls,
                  snap,
                  watch != Watch.KNOWN,
                  pausedNow,
                  mirror::synced,
                  queued == null ? dev.knotless.runner.pullpass.PullPass.Held.NONE : queued.held(),
                  stage);
      if (queued != null) {
        queue.run(repo, ownerPds, snap, queued, open, mirror::synced, pausedNow, stage);
      }
    }
    if (mirror.used()) {
      // After the checks are filed: nothing on their way waits for the commit-graph.
      mirror.tidyLater();
    }
    return prune(repo, view);
  }

  /**
   * For a stopping runner: drops the mirrors' commit-graph writes the passes left for later and
   * waits for the one under way.
   */
  public static void stopTidying() throws InterruptedException {
    PassMirror.stopTidying();
  }

  /** The pass's last step: at most once an hour, the repository's old checks go. */
  private Outcome prune(Watched repo, RepoView view) throws IOException {
    if (extras.pruner() != null) {
      Set<String> live = new java.util.HashSet<>();
      view.refs().forEach(r -> live.add(r.name()));
      // The pulls step settled the open pulls in the state: a pull no longer there is closed.
      Set<String> openPulls =
          extras.pulls() == null
              ? null
              : state.load(repo.stateKey()).map(s -> s.pulls().keySet()).orElse(Set.of());
      extras.pruner().maybePrune(repo, view.defaultRef(), live, openPulls, clock.instant());
    }
    return Outcome.DONE;
  }

  private static RepoView view(Watched repo, Snapshot snap) {
    List<RefState> refs = new ArrayList<>();
    for (RefRecord r : snap.liveRefs().values()) {
      refs.add(new RefState(r.name(), r.target(), r.generation()));
    }
    String branch = snap.repo().defaultBranchName().orElse("main");
    return new RepoView(repo.id().ownerDid(), repo.id().repoKey(), branch, refs);
  }

  /** Files the end of a check for a run that never started (a stop dropped it). */
  public static CheckRecord cancelled(CheckRecord queued, String why, Instant now) {
    return queued.ended(CheckStatus.CANCELLED, now, List.of(), why);
  }

  /** Ends the checks of runs dropped at refs that moved on since, before the state forgets them. */
  private void endMovedOn(Watched repo, PassPlan plan) {
    for (DroppedRun d : plan.movedOn()) {
      String went = plan.deleted().contains(d.subject()) ? "was deleted" : "moved on";
      for (String w : d.workflows()) {
        LOG.info(
            "{}: {} at {} dropped at a stop, not run: {} {}",
            repo.label(),
            w,
            d.commit(),
            d.subject(),
            went);
        String note = "a stop cut it off, and " + d.subject() + " " + went + " before it ran again";
        sink.movedOn(
            RunPlanner.pushKey(repo, d.subject(), d.commit(), w),
            went.equals("moved on") ? "superseded: " + note : note);
      }
    }
  }
}
