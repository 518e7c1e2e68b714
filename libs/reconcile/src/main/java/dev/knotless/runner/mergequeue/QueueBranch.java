package dev.knotless.runner.mergequeue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.pass.HeadRepos;
import dev.knotless.runner.pass.PullRunPlanner;
import dev.knotless.runner.pass.RunSink;
import dev.knotless.runner.pass.SnapshotReaders;
import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.pull.PullTrust;
import dev.knotless.runner.pullpass.PullPass;
import dev.knotless.runner.queue.QueuePlan;
import dev.knotless.runner.queue.QueuePlan.Build;
import dev.knotless.runner.queue.QueuePlan.Cancel;
import dev.knotless.runner.queue.QueuePlan.Check;
import dev.knotless.runner.queue.QueuePlan.Eject;
import dev.knotless.runner.queue.QueuePlan.Land;
import dev.knotless.runner.queue.QueuePlan.Outcome;
import dev.knotless.runner.queue.QueuePlan.Step;
import dev.knotless.runner.queue.QueueState;
import dev.knotless.runner.queue.QueueState.Batch;
import dev.knotless.runner.queue.QueueState.Pull;
import dev.knotless.runner.schedule.CancelReason;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.merge.MergeCommits;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One branch's merge queue in one pass of {@link QueuePass}: reads how its batches ended, carries
 * out the steps {@link QueuePlan} gives, and keeps the plan in the state after every one.
 */
final class QueueBranch {
  private static final Logger LOG = LoggerFactory.getLogger(QueuePass.class);

  private final StateStore state;
  private final Set<String> resumed;
  private final BatchLanding landing;
  private final BatchChecks checks;
  private final SnapshotReaders readers;
  private final HeadRepos heads;
  private final CheckFiler filer;
  private final Clock clock;
  private final RunSink sink;
  private final Map<String, List<String>> runIds;
  private final QueuePass.Cancels cancels;
  private final int batch;
  private final int depth;

  final Watched repo;
  final XrpcClient owner;
  Snapshot snap;
  final String ref;
  final List<Pull> queued;
  final Map<String, PullPass.Found> open;
  final PullPass.MirrorSync sync;
  QueueState s;
  final Deque<Step> steps = new ArrayDeque<>();
  // Pulls landed in this pass: merged now, though the pass read them open.
  final Set<String> landedHere = new HashSet<>();

  QueueBranch(
      QueuePass pass,
      Watched repo,
      XrpcClient owner,
      Snapshot snap,
      String ref,
      List<Pull> queued,
      Map<String, PullPass.Found> open,
      PullPass.MirrorSync sync) {
    this.state = pass.state;
    this.resumed = pass.resumed;
    this.landing = pass.landing;
    this.checks = pass.checks;
    this.readers = pass.readers;
    this.heads = pass.heads;
    this.filer = pass.filer;
    this.clock = pass.clock;
    this.sink = pass.sink;
    this.runIds = pass.runIds;
    this.cancels = pass.cancels;
    this.batch = pass.batch;
    this.depth = pass.depth;
    this.repo = repo;
    this.owner = owner;
    this.snap = snap;
    this.ref = ref;
    this.queued = queued;
    this.open = open;
    this.sync = sync;
    this.s =
        state.load(repo.stateKey()).map(r -> r.queues().get(ref)).orElse(QueueState.empty(ref));
  }

  String tip() {
    return snap.liveRefs().containsKey(ref) ? snap.liveRefs().get(ref).target() : null;
  }

  void work() throws IOException {
    String tip = tip();
    if (tip == null) {
      LOG.info("{}: {} is gone; its merge queue is dropped", repo.label(), ref);
      apply(QueuePlan.landRefused(s, "0".repeat(40)));
      drain();
      return;
    }
    if (resumed.add(repo.stateKey() + " " + ref) && !s.running().isEmpty()) {
      Batch first = s.running().get(0);
      if (tip.equals(first.tip())) {
        // It landed before the stop: adopted, never pushed again; its pulls marked merged.
        LOG.info("{}: batch {} landed before a stop; adopted", repo.label(), first.id());
        landing.adopt(repo.id().ownerDid(), repo.id().repoKey(), first);
      }
      apply(QueuePlan.resume(s, tip));
    }
    // How the batches checking ended, in landing order.
    for (Batch b : List.copyOf(s.running())) {
      if (b.status() != QueueState.Status.CHECKING || !s.running().contains(b)) {
        continue;
      }
      if (steps.stream().anyMatch(st -> st instanceof Check c && c.batch().id() == b.id())) {
        continue;
      }
      BatchChecks.Ended e = checks.ended(repo, ref, b);
      if (e == BatchChecks.Ended.PASSED) {
        LOG.info("{}: batch {} on {} passed", repo.label(), b.id(), ref);
        apply(QueuePlan.passed(s, b.id()));
      } else if (e == BatchChecks.Ended.FAILED) {
        LOG.info("{}: batch {} on {} failed", repo.label(), b.id(), ref);
        apply(QueuePlan.failed(s, b.id()));
      } else if (e == BatchChecks.Ended.ENDED_UNFINISHED) {
        LOG.info(
            "{}: batch {} on {}: a run ended with no runner to finish it; the batch runs again",
            repo.label(),
            b.id(),
            ref);
        fileAndRun(sync.mirror(), b);
      }
    }
    drain();
    // Fill again until nothing new is due: a batch built ahead needs the tip before it.
    for (int i = 0; i < 4 * depth + 4; i++) {
      String now = tip();
      if (now == null) {
        return;
      }
      Outcome o = QueuePlan.fill(s, queued(), now, batch, depth);
      if (o.steps().isEmpty()) {
        save(o.state());
        return;
      }
      apply(o);
      drain();
    }
  }

  /** The queued pulls not ejected in this pass. */
  List<Pull> queued() {
    RepoState now = state.load(repo.stateKey()).orElse(RepoState.empty());
    return queued.stream()
        .filter(p -> !landedHere.contains(p.uri()) && !p.head().equals(now.ejected().get(p.uri())))
        .toList();
  }

  void apply(Outcome o) {
    save(o.state());
    steps.addAll(o.steps());
  }

  void save(QueueState next) {
    s = next;
    state.update(repo.stateKey(), r -> r.withQueue(next));
  }

  void drain() throws IOException {
    while (!steps.isEmpty()) {
      Step step = steps.poll();
      if (step instanceof Build b) {
        Batch now = current(b.batch(), false).orElse(null);
        if (now != null) {
          build(now);
        }
      } else if (step instanceof Check c) {
        Batch b = current(c.batch(), false).orElse(null);
        if (b != null) {
          check(b);
        }
      } else if (step instanceof Land l) {
        // Two batches passing in one pass each ask for the first to land: it lands once.
        Batch b = current(l.batch(), true).orElse(null);
        if (b != null) {
          land(b);
        }
      } else if (step instanceof Eject e) {
        eject(e);
      } else if (step instanceof Cancel c) {
        cancel(c.batch(), c.why());
      }
    }
  }

  /**
   * The batch as the plan holds it now, if a step about it still applies: it is running and, for a
   * landing, first and passed. A step made stale by one before it is passed over.
   */
  java.util.Optional<Batch> current(Batch b, boolean landing) {
    for (int i = 0; i < s.running().size(); i++) {
      Batch now = s.running().get(i);
      if (now.id() == b.id()) {
        boolean ok = !landing || (i == 0 && now.status() == QueueState.Status.PASSED);
        return ok ? java.util.Optional.of(now) : java.util.Optional.empty();
      }
    }
    return java.util.Optional.empty();
  }

  void build(Batch b) throws IOException {
    Mirror mirror = sync.mirror();
    List<MergeCommits.Queued> pulls = new ArrayList<>();
    for (Pull p : b.pulls()) {
      PullPass.Found f = open.get(p.uri());
      if (f.headRepo() != snap && !mirror.git().has(p.head())) {
        mirror.fetch(f.headRepo(), heads.fetcher(f.pull().head().did()), List.of(p.head()));
      }
      pulls.add(new MergeCommits.Queued(p.uri(), p.head(), f.pull().head().ref()));
    }
    MergeCommits.Stack made = MergeCommits.stack(mirror.git(), b.base(), ref, pulls);
    if (made instanceof MergeCommits.StackConflict c) {
      Pull p = b.pulls().get(c.index());
      LOG.info("{}: batch {}: {} conflicts in {}", repo.label(), b.id(), p.uri(), c.files());
      apply(QueuePlan.conflict(s, b.id(), p, c.files()));
      return;
    }
    String tip = ((MergeCommits.Stacked) made).tip();
    save(QueuePlan.built(s, b.id(), tip));
    fileAndRun(mirror, s.running().stream().filter(x -> x.id() == b.id()).findFirst().get());
  }

  /** Files every check of the batch at its tip, then hands its runs to the job pool. */
  void fileAndRun(Mirror mirror, Batch b) throws IOException {
    boolean next = s.running().get(0).id() == b.id();
    boolean trusted =
        b.pulls().stream().allMatch(p -> open.get(p.uri()).at().trust() == PullTrust.TRUSTED);
    String defaultRef = "refs/heads/" + snap.repo().defaultBranchName().orElse("main");
    java.util.function.UnaryOperator<String> headRef = u -> open.get(u).pull().head().ref();
    BatchChecks.Filed f = checks.file(repo, mirror, ref, defaultRef, b, next, trusted, headRef);
    runIds.put(batchKey(b), f.runs().stream().map(PlannedRun::runId).toList());
    if (f.filed() == 0) {
      apply(QueuePlan.passed(s, b.id())); // nothing runs on it: nothing to fail
    } else if (f.broken()) {
      apply(QueuePlan.failed(s, b.id()));
      return;
    }
    f.runs().forEach(sink::submit);
  }

  /** After a restart: a batch whose checks all passed is adopted; otherwise it runs again. */
  void check(Batch b) throws IOException {
    Map<String, CheckRecord> filed = checks.read(repo, ref, b);
    if (!filed.isEmpty()
        && filed.values().stream().allMatch(c -> c.status() == CheckStatus.SUCCESS)) {
      LOG.info("{}: batch {} passed before a stop; its checks adopted", repo.label(), b.id());
      apply(QueuePlan.passed(s, b.id()));
      return;
    }
    LOG.info("{}: batch {} was checking at a stop; it runs again", repo.label(), b.id());
    fileAndRun(sync.mirror(), b);
  }

  void land(Batch b) throws IOException {
    snap = readers.reader(owner).read(repo.address(), SnapshotReader.Packs.NONE);
    BatchLanding.Landed landed = landing.land(snap, sync.mirror().git(), ref, b);
    if (landed instanceof BatchLanding.Pushed) {
      LOG.info(
          "{}: batch {} landed on {} at {}: {}",
          repo.label(),
          b.id(),
          ref,
          b.tip().substring(0, 12),
          b.pulls().stream().map(Pull::uri).toList());
      runIds.remove(batchKey(b));
      b.pulls().forEach(p -> landedHere.add(p.uri()));
      snap = readers.reader(owner).read(repo.address(), SnapshotReader.Packs.NONE);
      apply(QueuePlan.landed(s, b.id()));
      return;
    }
    snap = readers.reader(owner).read(repo.address(), SnapshotReader.Packs.NONE);
    String now = tip();
    LOG.info(
        "{}: batch {} not landed ({}); rebuilt on {}",
        repo.label(),
        b.id(),
        ((BatchLanding.Refused) landed).why(),
        now);
    apply(QueuePlan.landRefused(s, now == null ? "0".repeat(40) : now));
  }

  void eject(Eject e) throws IOException {
    PullPass.Found f = open.get(e.pull().uri());
    String base = tip() == null ? "0".repeat(40) : tip();
    String headRef = f == null ? ref : f.pull().head().ref();
    PullRunPlanner.PullSubject subject =
        new PullRunPlanner.PullSubject(
            e.pull().uri(), headRef, e.pull().head(), ref, base, e.pull().head());
    filer.file(
        PullRunPlanner.pullKey(repo, subject, QueuePass.EJECTED),
        PullRunPlanner.pullCheck(
            repo,
            subject,
            QueuePass.EJECTED,
            CheckStatus.FAILURE,
            List.of(),
            e.why(),
            clock.instant()));
    state.update(repo.stateKey(), r -> r.withEjected(e.pull().uri(), e.pull().head()));
    LOG.info("{}: {} {}", repo.label(), e.pull().uri(), e.why());
  }

  void cancel(Batch b, String why) {
    LOG.info("{}: batch {} on {} cancelled: {}", repo.label(), b.id(), ref, why);
    for (String id : runIds.getOrDefault(batchKey(b), List.of())) {
      cancels.cancel(id, CancelReason.BATCH_DROPPED);
    }
    runIds.remove(batchKey(b));
  }

  String batchKey(Batch b) {
    return repo.stateKey() + " " + ref + " " + b.id() + " " + b.tip();
  }
}
