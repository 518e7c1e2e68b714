package dev.knotless.runner.pullpass;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pass.HeadRepos;
import dev.knotless.runner.pass.PullRunTrust;
import dev.knotless.runner.pass.RunSink;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.pull.PullPlanner;
import dev.knotless.runner.pull.PullPlanner.Due;
import dev.knotless.runner.pull.PullPlanner.PullAt;
import dev.knotless.runner.pull.PullRecord;
import dev.knotless.runner.pull.PullState;
import dev.knotless.runner.pull.PullTrust;
import dev.knotless.runner.reconcile.RunClasses;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.merge.MergeCommits;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.storage.records.RefRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pulls step of a pass ({@code --pulls}): lists the repository's pulls from the appview, keeps
 * the open ones (by the states the owner and collaborators wrote), reads each head from its owner's
 * PDS, plans with {@link PullPlanner}, and for each due pull fetches the head into the mirror,
 * merges it with the base tip ({@link MergeCommits}) and files its checks ({@link PullChecks}).
 *
 * <p>A pull whose record does not parse, or names another repository, is logged and passed over; a
 * pull whose base branch, head repository or head branch is gone counts as closed. Thread-safe for
 * passes of different repositories.
 */
public final class PullPass {

  private static final Logger LOG = LoggerFactory.getLogger(PullPass.class);

  private final AppviewPulls appview;
  private final HeadRepos heads;
  private final StateStore state;
  private final PullChecks checks;
  private final PullChecks laterChecks;
  private final Path cacheDir;
  private final Clock clock;
  private final boolean pullsOnly;
  private final RunSink sink;
  private volatile Consumer<String> closed = uri -> {};
  private volatile java.util.function.BiConsumer<
          dev.knotless.runner.doorbell.RepoId, java.util.Set<dev.knotless.runner.doorbell.RepoId>>
      headsFollower = (base, heads) -> {};

  /**
   * Tells {@code follower}, after each pass, the head repositories of the repository's open pulls
   * that are other repositories, so a push to one rings the base's door.
   */
  public PullPass followingHeads(
      java.util.function.BiConsumer<
              dev.knotless.runner.doorbell.RepoId,
              java.util.Set<dev.knotless.runner.doorbell.RepoId>>
          follower) {
    this.headsFollower = follower;
    return this;
  }

  /**
   * @param pullsOnly whether this runner runs the repository's pulls alone ({@code --pulls-only}):
   *     its pulls then rank Later and run again only as their head moves, not their base
   */
  public PullPass(
      AppviewPulls appview,
      HeadRepos heads,
      StateStore state,
      CheckFiler filer,
      dev.knotless.runner.pass.RunPlanner planner,
      RunSink sink,
      Path cacheDir,
      Clock clock,
      boolean pullsOnly,
      String runnerDid) {
    this.appview = appview;
    this.heads = heads;
    this.state = state;
    this.checks =
        new PullChecks(filer, planner, sink, clock, RunClasses.forPull(pullsOnly), runnerDid)
            .pullsOnly(pullsOnly);
    this.laterChecks =
        new PullChecks(filer, planner, sink, clock, RunClasses.forPull(true), runnerDid)
            .pullsOnly(pullsOnly);
    this.cacheDir = cacheDir;
    this.clock = clock;
    this.pullsOnly = pullsOnly;
    this.sink = sink;
  }

  /**
   * What a pulls step is made of besides the appview: the runner's parts, as a service has them.
   */
  public record Parts(
      dev.knotless.runner.pass.PdsAccess access,
      StateStore state,
      CheckFiler filer,
      dev.knotless.runner.pass.RunPlanner planner,
      RunSink sink,
      Clock clock) {}

  /**
   * The pulls step of a runner that runs pushes too (not {@code --pulls-only}), listing pulls from
   * {@code appview} and reading heads through the runner's PDS access.
   */
  public static PullPass of(Parts parts, dev.knotless.atproto.XrpcClient appview) {
    return new PullPass(
        new AppviewPulls(appview),
        parts.access().heads(),
        parts.state(),
        parts.filer(),
        parts.planner(),
        parts.sink(),
        parts.access().cache().dir(),
        parts.clock(),
        false,
        parts.access().runner().did());
  }

  /**
   * Has each pull found closed without being merged told to {@code closed}, by its AT-URI, on every
   * pass that lists it: the caches forget the layers its passes kept.
   */
  public void onClosed(Consumer<String> closed) {
    this.closed = closed;
  }

  /**
   * An open pull, where it is now, with what its run needs.
   *
   * @param pull its record
   * @param headRepo the repository its head is in, as read in this pass
   * @param at its head and base tips, and whether it is trusted
   */
  public record Found(PullRecord pull, Snapshot headRepo, PullAt at) {}

  /**
   * What the merge queue holds back from this step.
   *
   * @param landsQueue whether this runner lands the repository's queue: pulls not queued then rank
   *     Later and run again only as their head moves, not their base
   * @param queued the pulls in the queue, by AT-URI: they do not run on their own, their batch is
   *     their run
   */
  public record Held(boolean landsQueue, java.util.Set<String> queued) {
    public Held {
      queued = java.util.Set.copyOf(queued);
    }

    /** Nothing held: no queue is landed here. */
    public static final Held NONE = new Held(false, java.util.Set.of());
  }

  /**
   * Lists the repository's pulls from the appview. A pass lists them before it reads the refs, so
   * every pull it sees is checked against a base at least as new as the one it was opened on.
   */
  public Listing list(Watched repo) throws IOException {
    List<AppviewPulls.Listed> listed =
        new ArrayList<>(appview.list(repo.id().ownerDid(), repo.id().repoKey()));
    listed.sort(
        Comparator.comparing(AppviewPulls.Listed::uri, Comparator.comparing(PullPass::rkey)));
    return new Listing(List.copyOf(listed));
  }

  /** The pulls {@link #list} found, in the order they were opened. */
  public record Listing(List<AppviewPulls.Listed> pulls) {}

  /**
   * Runs the step.
   *
   * @param listing the pulls listed before {@code snap} was read
   * @param snap the watched repository as this pass read it
   * @param firstWatch whether this is its first pass: open pulls are then taken as they are
   * @param sync syncs the watched repository's mirror (once a pass), before a head is fetched
   * @param held the pulls the merge queue holds back
   * @return every open pull found, in the order they were opened, queued ones included
   */
  public List<Found> run(
      Watched repo,
      Listing listing,
      Snapshot snap,
      boolean firstWatch,
      PausedOwners paused,
      MirrorSync sync,
      Held held,
      Consumer<String> stage)
      throws IOException {
    String owner = repo.id().ownerDid();
    List<AppviewPulls.Listed> listed = listing.pulls();
    JsonNode record = snap.repo().raw();
    List<String> collaborators = PullRunTrust.dids(record.path("collaborators"));

    stage.accept("reading the heads of " + listed.size() + " pulls");
    Map<String, Found> found = new LinkedHashMap<>();
    for (AppviewPulls.Listed l : listed) {
      PullRecord p;
      try {
        p = PullRecord.parse(l.uri(), l.record());
      } catch (IllegalArgumentException e) {
        LOG.warn("{}: pull {} passed over: {}", repo.label(), l.uri(), e.getMessage());
        continue;
      }
      if (!p.base().did().equals(owner) || !p.base().key().equals(repo.id().repoKey())) {
        LOG.warn(
            "{}: pull {} passed over: it is into {}, not this repository",
            repo.label(),
            l.uri(),
            p.base().repoUri());
        continue;
      }
      if (!PullState.open(l.states(), owner, collaborators)) {
        if (PullState.closedUnmerged(l.states(), owner, collaborators)) {
          // What its passes kept for a push will not be taken: the pull will not land.
          closed.accept(p.uri());
        }
        continue;
      }
      Found f = where(repo, snap, p);
      if (f != null) {
        found.put(p.uri(), f);
      }
    }

    List<Found> all = List.copyOf(found.values());
    // A queued pull does not run on its own: its batch is its run.
    found.keySet().removeAll(held.queued());
    List<PullAt> open = found.values().stream().map(Found::at).toList();
    java.util.Set<dev.knotless.runner.doorbell.RepoId> followed = new java.util.LinkedHashSet<>();
    for (Found f : found.values()) {
      if (f.headRepo() != snap) {
        followed.add(
            new dev.knotless.runner.doorbell.RepoId(f.pull().head().did(), f.pull().head().key()));
      }
    }
    headsFollower.accept(repo.id(), followed);
    RepoState before = state.load(repo.stateKey()).orElse(RepoState.empty());
    boolean later = pullsOnly || held.landsQueue();
    PullPlanner.Plan plan = PullPlanner.plan(open, held.queued(), before, firstWatch, !later);
    endMovedOn(repo, plan);
    state.update(repo.stateKey(), s -> PullPlanner.settle(s, plan));
    if (firstWatch && !open.isEmpty()) {
      LOG.info(
          "{}: first pass: {} open pulls taken as they are, none run", repo.label(), open.size());
    }
    for (PullAt p : plan.passedOver()) {
      if (!firstWatch) {
        LOG.info(
            "{}: pull {} is not trusted (its author or head repository's owner does not write to"
                + " the repository): it runs when the owner asks, with knotless rerun --pull {}",
            repo.label(),
            p.uri(),
            p.uri());
      }
    }
    if (plan.due().isEmpty()) {
      return all;
    }

    stage.accept("syncing the mirror for pulls");
    Mirror mirror = sync.mirror();
    String defaultRef = "refs/heads/" + snap.repo().defaultBranchName().orElse("main");
    for (Due due : plan.due()) {
      Found f = found.get(due.pull().uri());
      stage.accept("filing the checks of pull " + due.pull().uri());
      PullRecord p = f.pull();
      if (f.headRepo() != snap) {
        mirror.fetch(f.headRepo(), heads.fetcher(p.head().did()), List.of(due.pull().head()));
      }
      (later ? laterChecks : checks)
          .file(repo, mirror, p, due, defaultRef, collaborators, paused, clock.instant());
      state.update(repo.stateKey(), s -> PullPlanner.filed(s, due));
    }
    return all;
  }

  /**
   * Runs some workflows of an open pull, as a pull's run at its head and base tip, without marking
   * the pull as run there: the merge queue's pre-flights of a queued pull, which the pulls step
   * holds back. Queuing is the owner's or a collaborator's ask, so an untrusted pull runs them too,
   * untrusted.
   *
   * @param workflows the workflows to run, by name; at least one
   * @param each what to make of each run before it is filed and handed on
   */
  public void runOnly(
      Watched repo,
      Mirror mirror,
      Snapshot snap,
      Found f,
      java.util.Set<String> workflows,
      PausedOwners paused,
      java.util.function.UnaryOperator<dev.knotless.runner.plan.PlannedRun> each)
      throws IOException {
    if (workflows.isEmpty()) {
      throw new IllegalArgumentException("no workflows to run on " + f.pull().uri());
    }
    PullRecord p = f.pull();
    if (f.headRepo() != snap && !mirror.git().has(f.at().head())) {
      mirror.fetch(f.headRepo(), heads.fetcher(p.head().did()), List.of(f.at().head()));
    }
    String defaultRef = "refs/heads/" + snap.repo().defaultBranchName().orElse("main");
    checks.file(
        repo,
        mirror,
        p,
        new Due(f.at(), PullPlanner.Why.ASKED, workflows),
        defaultRef,
        PullRunTrust.dids(snap.repo().raw().path("collaborators")),
        paused,
        clock.instant(),
        each);
  }

  /** The watched repository's mirror, synced once in a pass. */
  @FunctionalInterface
  public interface MirrorSync {
    Mirror mirror() throws IOException;
  }

  /** Where an open pull is now, or null when its base, head repository or head branch is gone. */
  private Found where(Watched repo, Snapshot snap, PullRecord p) {
    RefRecord base = snap.liveRefs().get(p.base().ref());
    if (base == null) {
      LOG.info(
          "{}: pull {}: its base {} is gone; counted as closed",
          repo.label(),
          p.uri(),
          p.base().ref());
      return null;
    }
    Snapshot headRepo = snap;
    boolean sameRepo =
        p.head().did().equals(p.base().did()) && p.head().key().equals(p.base().key());
    if (!sameRepo) {
      try {
        headRepo = heads.read(p.head().did(), p.head().name());
      } catch (IOException e) {
        LOG.warn(
            "{}: pull {}: its head repository {} cannot be read ({}); counted as closed",
            repo.label(),
            p.uri(),
            p.head().repoUri(),
            e.getMessage());
        return null;
      }
      if (!headRepo.exists() || !p.head().key().equals(headRepo.key().orElse(null))) {
        LOG.info(
            "{}: pull {}: its head repository {} is gone; counted as closed",
            repo.label(),
            p.uri(),
            p.head().repoUri());
        return null;
      }
    }
    RefRecord head = headRepo.liveRefs().get(p.head().ref());
    if (head == null) {
      LOG.info(
          "{}: pull {}: its head {} is gone; counted as closed",
          repo.label(),
          p.uri(),
          p.head().ref());
      return null;
    }
    PullTrust trust = PullRunTrust.of(p, repo.id().ownerDid(), snap.repo().raw());
    return new Found(p, headRepo, new PullAt(p.uri(), trust, head.target(), base.target()));
  }

  private static String rkey(String uri) {
    return uri.substring(uri.lastIndexOf('/') + 1);
  }

  /**
   * Ends the checks of pull runs a stop dropped where the pull no longer is, or of closed pulls.
   */
  private void endMovedOn(Watched repo, PullPlanner.Plan plan) {
    end(repo, plan.movedOn(), "moved");
    end(repo, plan.closedOn(), "was closed");
  }

  private void end(Watched repo, List<DroppedRun> runs, String what) {
    for (DroppedRun d : runs) {
      for (String w : d.workflows()) {
        LOG.info(
            "{}: {} of pull {} at {} on {} dropped at a stop, not run: the pull {}",
            repo.label(),
            w,
            d.subject(),
            d.commit(),
            d.base(),
            what);
        sink.movedOn(
            CheckKeys.pull(
                repo.id().ownerDid(), repo.id().repoKey(), d.subject(), d.commit(), d.base(), w),
            "superseded: a stop cut it off, and the pull " + what + " before it ran again");
      }
    }
  }
}
