package dev.knotless.runner.pass;

import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.plan.RunOrder;
import dev.knotless.runner.pull.PassReuse;
import dev.knotless.runner.pull.PullRecord;
import dev.knotless.runner.pull.PullTrust;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.schedule.SubjectKind;
import dev.knotless.runner.state.PassedRun;
import dev.knotless.runner.workflow.Workflow;
import dev.knotless.runner.workflow.WorkflowSet;
import dev.knotless.storage.Snapshot;
import dev.knotless.storage.merge.CommitFiles;
import dev.knotless.storage.merge.MergeCommits;
import dev.knotless.storage.mirror.Mirror;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Plans a pull's or a merge-queue batch's run again from its {@link RunOrder}, trusting nothing of
 * the order it does not read again and check: each pull's record is read from its author's PDS and
 * must be into the order's repository and branch from the head branch the order names; the base tip
 * and each head are fetched from their repositories' PDSes; the pulls are merged in order as the
 * pass merged them ({@link MergeCommits#stack}), and the run goes ahead only if that makes the
 * commit the order names. Whose code it is comes from {@link PullRunTrust} on the repository record
 * read here, and the run is made by the pass's own {@link PullRunPlanner}, so it gets no secrets
 * and is never trusted code, as on the reconciler. Thread-safe.
 */
final class MergeOrders {

  private final OrderPlanner orders;
  private final PdsAccess access;
  private final RunPlanner planner;
  private final Path cacheDir;
  private final Clock clock;

  MergeOrders(
      OrderPlanner orders, PdsAccess access, RunPlanner planner, Path cacheDir, Clock clock) {
    this.orders = orders;
    this.access = access;
    this.planner = planner;
    this.cacheDir = cacheDir;
    this.clock = clock;
  }

  /** The run of a pull's or batch's {@code order}, queued; read and checked when it starts. */
  PlannedRun plan(RunOrder order) {
    String name = order.label().substring(order.label().indexOf('/') + 1);
    String repoUri = "at://" + order.ownerDid() + "/dev.knotless.repo/" + name;
    boolean pull = order.kind() == RunOrder.Kind.PULL;
    RunOrder.Stacked first = order.pulls().get(0);
    CheckRecord queued =
        new CheckRecord(
            repoUri,
            pull ? first.headRef() : order.ref(),
            pull ? first.head() : order.commit(),
            order.base(),
            pull ? first.uri() : null,
            order.workflow(),
            CheckStatus.QUEUED,
            clock.instant(),
            null,
            null,
            List.of(),
            null,
            List.of(),
            null);
    RunRequest request =
        new RunRequest(
            order.checkKey(),
            order.ownerDid(),
            order.ownerDid() + "/" + order.repoKey(),
            pull ? first.uri() : "queue " + order.ref(),
            pull ? SubjectKind.PULL : SubjectKind.BATCH,
            order.workflow(),
            (pull ? first.head() : order.commit()) + " " + order.base(),
            order.runClass(),
            order.superseded(),
            order.privateRepo());
    return new PlannedRun(
        order.label(), request, queued, new OrderPlanner.Replanned(() -> replan(order)), order);
  }

  /** A pull's record and the repository its head is in, as read now. */
  private record Read(PullRecord pull, Snapshot headRepo) {}

  private PlannedRun replan(RunOrder order) throws PlannedRun.PrepareException {
    Watched.Found found = orders.found(order);
    Watched repo = found.repo();
    List<Read> read = new ArrayList<>();
    for (RunOrder.Stacked s : order.pulls()) {
      read.add(read(found, order, s));
    }
    Mirror mirror;
    WorkflowSet set;
    try {
      synchronized (orders.mirrorLock(repo)) {
        mirror = Mirror.open(cacheDir, repo.id().ownerDid(), repo.id().repoKey());
        if (!mirror.git().has(order.base())) {
          mirror.fetch(
              found.snapshot(), access.fetcher(access.storeOf(repo)), List.of(order.base()));
        }
        List<MergeCommits.Queued> stack = new ArrayList<>();
        for (int i = 0; i < read.size(); i++) {
          RunOrder.Stacked s = order.pulls().get(i);
          if (!mirror.git().has(s.head())) {
            Read r = read.get(i);
            mirror.fetch(
                r.headRepo(),
                r.headRepo() == found.snapshot()
                    ? access.fetcher(access.storeOf(repo))
                    : access.heads().fetcher(r.pull().head().did()),
                List.of(s.head()));
          }
          stack.add(new MergeCommits.Queued(s.uri(), s.head(), s.headRef()));
        }
        made(MergeCommits.stack(mirror.git(), order.base(), order.ref(), stack), order);
      }
      set =
          order.kind() == RunOrder.Kind.PULL
              ? planner.workflows(mirror.git(), order.commit())
              // As the queue step files a batch's checks: its workflows as the tip holds them.
              : CommitFiles.workflowSet(mirror.git(), order.commit());
    } catch (IOException e) {
      throw new PlannedRun.PrepareException(
          "the commits of "
              + order.kind().json()
              + " run "
              + order.checkKey()
              + " could not be fetched or merged: "
              + e.getMessage());
    }
    Workflow w = OrderPlanner.workflow(set, order.workflow(), order.commit());
    PullTrust trust;
    try {
      trust = trust(found, mirror, order, read);
    } catch (IOException e) {
      throw new PlannedRun.PrepareException(
          "the shared steps' locks at " + order.commit() + " could not be read: " + e.getMessage());
    }
    boolean trusted = trust == PullTrust.TRUSTED;
    if (order.kind() == RunOrder.Kind.PULL) {
      RunOrder.Stacked s = order.pulls().get(0);
      PullRunPlanner.PullSubject subject =
          new PullRunPlanner.PullSubject(
              s.uri(), s.headRef(), s.head(), order.ref(), order.base(), order.commit());
      PlannedRun run =
          planner
              .pulls()
              .pull(repo, mirror.dir(), w, subject, order.runClass(), trusted, clock.instant());
      return OrderPlanner.same(
          kept(run, found, mirror, w, trust, order, order.pulls().get(0).uri()), order);
    }
    PlannedRun batch =
        planner
            .pulls()
            .batch(
                repo,
                mirror.dir(),
                w,
                order.ref(),
                order.base(),
                order.commit(),
                order.runClass(),
                trusted,
                null,
                order.pulls(),
                clock.instant());
    // A trusted batch's pass is kept as the queue step keeps it: the push that lands it takes it.
    return OrderPlanner.same(
        kept(batch, found, mirror, w, trust, order, "merge-queue batch on " + order.ref()), order);
  }

  /**
   * A pull's or a batch's run, its pass kept for the push that lands it when the pass would keep it
   * (trusted code into the default branch, of a workflow that may be reused; {@link PassReuse}):
   * decided here from what was read again, not from the queue row. {@code from} names what passed
   * in the note of the check that takes the pass.
   */
  private PlannedRun kept(
      PlannedRun run,
      Watched.Found found,
      Mirror mirror,
      Workflow w,
      PullTrust trust,
      RunOrder order,
      String from)
      throws PlannedRun.PrepareException {
    String defaultRef = "refs/heads/" + found.snapshot().repo().defaultBranchName().orElse("main");
    if (PassReuse.whyNotKept(w, trust, order.ref(), defaultRef).isPresent()) {
      return run;
    }
    String tree;
    try {
      tree = mirror.git().revParse(order.commit() + "^{tree}").strip();
    } catch (IOException e) {
      throw new PlannedRun.PrepareException(
          "the tree of " + order.commit() + " could not be read: " + e.getMessage());
    }
    String check = "at://" + access.runner().did() + "/dev.knotless.check/" + order.checkKey();
    return run.keptAs(new PassedRun(tree, w.name(), check, from));
  }

  /**
   * Whose code the run is, decided as the pass decides it: a pull's run is {@link
   * PullTrust#TRUSTED} when the pull is and its merge brings no strangers' shared steps; a batch's
   * when every pull in it is.
   */
  private static PullTrust trust(
      Watched.Found found, Mirror mirror, RunOrder order, List<Read> read) throws IOException {
    var record = found.snapshot().repo().raw();
    String owner = found.repo().id().ownerDid();
    if (order.kind() == RunOrder.Kind.BATCH) {
      return read.stream()
              .allMatch(r -> PullRunTrust.of(r.pull(), owner, record) == PullTrust.TRUSTED)
          ? PullTrust.TRUSTED
          : PullTrust.UNTRUSTED;
    }
    PullTrust trust = PullRunTrust.of(read.get(0).pull(), owner, record);
    if (trust.runsAsItMoves()) {
      trust =
          PullRunTrust.atMerge(
              trust,
              PullRunTrust.lockStrangers(
                  found.repo(),
                  mirror,
                  order.commit(),
                  order.base(),
                  PullRunTrust.dids(record.path("collaborators"))));
    }
    return trust;
  }

  /** The stack must make the commit the order names: else it is not the run that was queued. */
  private static void made(MergeCommits.Stack stack, RunOrder order)
      throws PlannedRun.PrepareException {
    if (stack instanceof MergeCommits.StackConflict c) {
      throw new PlannedRun.PrepareException(
          order.pulls().get(c.index()).uri()
              + " conflicts with "
              + order.ref()
              + " at "
              + order.base()
              + " in "
              + String.join(", ", c.files())
              + ": the queued run is not what merging it makes");
    }
    String tip = ((MergeCommits.Stacked) stack).tip();
    if (!tip.equals(order.commit())) {
      throw new PlannedRun.PrepareException(
          "merging the pulls into "
              + order.base()
              + " makes "
              + tip
              + " here, not "
              + order.commit()
              + " as when the run was queued: it is not run");
    }
  }

  /**
   * Pull {@code s}'s record, read from its author's PDS, and its head repository: the record must
   * be a pull into the order's repository and branch from the head branch the order names.
   */
  private Read read(Watched.Found found, RunOrder order, RunOrder.Stacked s)
      throws PlannedRun.PrepareException {
    String[] at = s.uri().substring("at://".length()).split("/");
    if (at.length != 3 || !at[1].equals(PullRecord.COLLECTION)) {
      throw new PlannedRun.PrepareException(s.uri() + " is not a pull record's AT-URI");
    }
    PullRecord p;
    try {
      Record r =
          access
              .owner(access.identities().resolve(at[0]).pds())
              .getRecord(at[0], PullRecord.COLLECTION, at[2]);
      p = PullRecord.parse(s.uri(), r.value());
    } catch (IOException | RuntimeException e) {
      throw new PlannedRun.PrepareException(
          "pull " + s.uri() + " could not be read from its author's PDS: " + e.getMessage());
    }
    Watched repo = found.repo();
    if (!p.base().did().equals(repo.id().ownerDid())
        || !p.base().key().equals(repo.id().repoKey())
        || !p.base().ref().equals(order.ref())
        || !p.head().ref().equals(s.headRef())) {
      throw new PlannedRun.PrepareException(
          "pull "
              + s.uri()
              + " is from "
              + p.head().ref()
              + " into "
              + p.base().repoUri()
              + " "
              + p.base().ref()
              + ", not from "
              + s.headRef()
              + " into "
              + repo.repoUri()
              + " "
              + order.ref()
              + " as when the run was queued: it is not run");
    }
    boolean sameRepo =
        p.head().did().equals(p.base().did()) && p.head().key().equals(p.base().key());
    if (sameRepo) {
      return new Read(p, found.snapshot());
    }
    Snapshot head;
    try {
      head = access.heads().read(p.head().did(), p.head().name());
    } catch (IOException | RuntimeException e) {
      throw new PlannedRun.PrepareException(
          "the head repository " + p.head().repoUri() + " could not be read: " + e.getMessage());
    }
    if (!head.exists() || !p.head().key().equals(head.key().orElse(null))) {
      throw new PlannedRun.PrepareException(
          "the head repository " + p.head().repoUri() + " of " + s.uri() + " is gone");
    }
    return new Read(p, head);
  }
}
