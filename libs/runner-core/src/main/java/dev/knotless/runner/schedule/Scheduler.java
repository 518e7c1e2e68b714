package dev.knotless.runner.schedule;

import dev.knotless.runner.schedule.RunRequest.WorkKey;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The scheduling policy: which waiting run gets a job next, what a newer commit cancels, and who
 * holds a workflow's turn on a ref. One pure policy for the all-in-one runner and the scheduler
 * service: it starts nothing, reads no clock and keeps no thread; the caller passes the time in and
 * acts on the values returned.
 *
 * <p>A run takes everything it needs at once: a job, and its workflow's turn on the subject when it
 * is {@code superseded: finish}. A run holding a turn is either running or waiting for a job alone,
 * and a running run holds everything it needs, so no two runs ever wait on each other.
 *
 * <p>Lifecycle of a run: {@link #submit} as its check is filed; started when {@link #admit} returns
 * it; {@link #finished} when its steps are over and its job is free; {@link #fileEnded} once its
 * check is filed as ended (which hands its turn on). {@link #cancel} at any time.
 *
 * <p>Not thread-safe: callers hold one lock around every call.
 */
public final class Scheduler {

  private final SchedulerConfig config;
  private final UsageLedger usage;
  private final MinutesRecords minutes = new MinutesRecords();
  private final RankedQueue queue = new RankedQueue();
  private final Holdings holdings = new Holdings();
  private final Map<String, Entry> runs = new HashMap<>();
  // Waiting or running runs not told to cancel, per workflow on a subject: what a newer run
  // supersedes, and who takes a turn handed on.
  private final Map<WorkKey, List<Entry>> live = new HashMap<>();
  private final Map<WorkKey, Entry> turns = new HashMap<>();
  private long nextSeq;
  private boolean stopping;
  private HeldElsewhere heldElsewhere = HeldElsewhere.NONE;

  /** A scheduler with these flags, counting allowances from (and into) {@code usage}. */
  public Scheduler(SchedulerConfig config, UsageLedger usage) {
    this.config = config;
    this.usage = usage;
  }

  /**
   * Files a run: it waits from now. Returns what that does to other runs of its workflow on the
   * subject, in order: a newer commit's run cancels the older, waiting or running, unless the older
   * holds the turn (superseded: finish, and not on a pull that moved); a run asked for by name
   * cancels one at the same commit; a full rerun of the same commit leaves the older going. A run
   * that needs the turn takes it now if no run holds it ({@link Decision.Kept}).
   *
   * @throws IllegalArgumentException if a run with this id is already known
   */
  public List<Decision> submit(RunRequest request, Instant now) {
    if (stopping) {
      throw new IllegalStateException(
          "the runner is stopping: run " + request.runId() + " was not taken");
    }
    if (runs.containsKey(request.runId())) {
      throw new IllegalArgumentException("run " + request.runId() + " is already submitted");
    }
    List<Decision> out = new ArrayList<>();
    WorkKey key = request.workKey();
    for (Entry old : List.copyOf(live.getOrDefault(key, List.of()))) {
      CancelReason why = supersedes(request, old);
      if (why != null) {
        cancel(old, why).ifPresent(out::add);
      }
    }
    Entry e = new Entry(request, nextSeq++, now);
    runs.put(request.runId(), e);
    live.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
    if (request.needsTurn() && !turns.containsKey(key)) {
      takeTurn(e);
      out.add(new Decision.Kept(request.runId()));
    }
    queue.add(e);
    return out;
  }

  /**
   * Whether {@code newer} cancels the older commits' runs of its workflow on its subject that
   * another replica holds, as {@link #submit} cancels this scheduler's own: a deploy ({@code
   * superseded: finish}) waits for them instead, a run asked for by name replaces only its own
   * commit's, and a merge-queue batch supersedes nothing.
   */
  public static boolean supersedesElsewhere(RunRequest newer) {
    return !newer.needsTurn() && !newer.askedByName() && newer.subjectKind() != SubjectKind.BATCH;
  }

  private static CancelReason supersedes(RunRequest newer, Entry old) {
    if (newer.subjectKind() == SubjectKind.BATCH) {
      return null;
    }
    if (old.request.revision().equals(newer.revision())) {
      return newer.askedByName() && !old.holdsTurn ? CancelReason.ASKED_AGAIN : null;
    }
    if (old.holdsTurn) {
      return old.request.subjectKind() == SubjectKind.PULL ? CancelReason.PULL_MOVED : null;
    }
    return CancelReason.SUPERSEDED;
  }

  /**
   * Cancels a run for a reason of the caller's: a stop, a pull closed, a batch dropped. A kept run
   * is cancelled too. Empty when the run is unknown, ended, or already told to cancel, so a later
   * cancel never overwrites the first reason.
   */
  public Optional<Decision.Cancel> cancel(String runId, CancelReason reason) {
    Entry e = runs.get(runId);
    return e == null ? Optional.empty() : cancel(e, reason);
  }

  private Optional<Decision.Cancel> cancel(Entry e, CancelReason reason) {
    switch (e.state) {
      case WAITING -> {
        queue.remove(e);
        forgetLive(e);
        ended(e);
        return Optional.of(new Decision.Cancel(e.request.runId(), false, reason));
      }
      case RUNNING -> {
        e.state = Entry.State.CANCELLING;
        forgetLive(e);
        return Optional.of(new Decision.Cancel(e.request.runId(), true, reason));
      }
      default -> {
        return Optional.empty();
      }
    }
  }

  /**
   * The runs to start now, in rank order. Waiting runs are ranked by class, then owner turn, then
   * submission; a run goes only when everything it needs is free, and a later run goes ahead only
   * with what nothing ranked before it waits for. {@code now} dates allowances and waits.
   */
  public List<Admission> admit(Instant now) {
    return admit(now, HeldElsewhere.NONE);
  }

  /**
   * As {@link #admit(Instant)}, with what the runner's other replicas hold ({@link AdmissionGate})
   * taken into account until the next admission says otherwise: the jobs each owner's runs hold
   * there count against {@code --owner-jobs} beside this scheduler's own, and a run that needs its
   * workflow's turn waits while a run filed there before it holds that turn.
   */
  public List<Admission> admit(Instant now, HeldElsewhere elsewhere) {
    heldElsewhere = elsewhere;
    List<Admission> out = new ArrayList<>();
    LocalDate today = UsageLedger.day(now);
    int free = config.jobs() - holdings.running();
    for (RunClass runClass : RunClass.values()) {
      List<Entry> started = new ArrayList<>();
      RankedQueue.Walk walk = queue.walk(runClass);
      Entry e;
      while (free > 0 && !classCapped(runClass) && (e = walk.next()) != null) {
        WaitReason block = ownBlock(e, today);
        if (block == WaitReason.TURN) {
          continue; // the owner's next run may still go: it needs another turn, or none
        }
        if (block != null) {
          walk.dropLine(); // every later run of this owner (and kind) is held the same way
          continue;
        }
        boolean pastAllowance = pastAllowance(e, today);
        holdings.take(e);
        free--;
        started.add(e);
        out.add(new Admission(e.request, Duration.between(e.submittedAt, now), pastAllowance));
      }
      for (Entry s : started) {
        queue.started(s);
        s.state = Entry.State.RUNNING;
        if (s.request.needsTurn() && !s.holdsTurn) {
          takeTurn(s);
        }
      }
    }
    return out;
  }

  /**
   * Records that a run's steps are over and its job is free (the container is gone), counting
   * {@code stepMillis} against its owner's allowance on the day of {@code now}.
   *
   * @throws IllegalStateException if the run is not running
   */
  public RunEnded finished(String runId, long stepMillis, Instant now) {
    Entry e = runs.get(runId);
    if (e == null || !e.holdsJob()) {
      throw new IllegalStateException("run " + runId + " is not running");
    }
    holdings.release(e);
    forgetLive(e);
    RunRequest r = e.request;
    LocalDate day = UsageLedger.day(now);
    long before = usage.usedMillis(r.ownerDid(), r.privateRepo(), day);
    usage.add(r.ownerDid(), r.privateRepo(), day, stepMillis);
    boolean write = false;
    if (!r.privateRepo()) {
      long after = usage.usedMillis(r.ownerDid(), false, day);
      write =
          minutes.runEnded(
              r.ownerDid(), before, after, config.allowanceMillis(r.ownerDid(), false), now);
    }
    ended(e);
    return new RunEnded(r, day, stepMillis, write);
  }

  /**
   * Records that a run's check is filed as ended, which releases the turn it held, if any, and
   * hands it to the earliest run waiting for it. Call it for every run filed as ended, cancelled
   * ones included. Returns the run that took the turn, now kept.
   *
   * @throws IllegalStateException if the run is still waiting or running
   */
  public Optional<Decision.Kept> fileEnded(String runId) {
    Entry e = runs.get(runId);
    if (e == null) {
      return Optional.empty();
    }
    if (e.state != Entry.State.ENDED) {
      throw new IllegalStateException("run " + runId + " has not ended, so its check cannot be");
    }
    runs.remove(runId);
    WorkKey key = e.request.workKey();
    turns.remove(key);
    for (Entry next : live.getOrDefault(key, List.of())) {
      if (next.state == Entry.State.WAITING && next.request.needsTurn()) {
        takeTurn(next);
        return Optional.of(new Decision.Kept(next.request.runId()));
      }
    }
    return Optional.empty();
  }

  /** The waiting runs in rank order, each with why it waits. O(n log n): for logs and pages. */
  public List<WaitingRun> waiting(Instant now) {
    LocalDate today = UsageLedger.day(now);
    List<WaitingRun> out = new ArrayList<>(queue.size());
    for (RunClass runClass : RunClass.values()) {
      RankedQueue.Walk walk = queue.walk(runClass);
      for (Entry e = walk.next(); e != null; e = walk.next()) {
        out.add(new WaitingRun(e.request, reason(e, today), e.submittedAt));
      }
    }
    return out;
  }

  /** How many runs wait, by class and reason (every pair present), for metrics. O(n). */
  public Map<RunClass, Map<WaitReason, Integer>> waitingCounts(Instant now) {
    LocalDate today = UsageLedger.day(now);
    Map<RunClass, Map<WaitReason, Integer>> out = new EnumMap<>(RunClass.class);
    for (RunClass c : RunClass.values()) {
      Map<WaitReason, Integer> byReason = new EnumMap<>(WaitReason.class);
      for (WaitReason r : WaitReason.values()) {
        byReason.put(r, 0);
      }
      out.put(c, byReason);
    }
    for (Entry e : runs.values()) {
      if (e.state == Entry.State.WAITING) {
        out.get(e.request.runClass()).merge(reason(e, today), 1, Integer::sum);
      }
    }
    return out;
  }

  /** Runs holding a job now, cancelling ones included. */
  public int runningCount() {
    return holdings.running();
  }

  /** Runs waiting for a job now. */
  public int waitingCount() {
    return queue.size();
  }

  /** Owners whose public minutes record, held back by the five-minute spacing, is due now. */
  public List<String> minutesDue(Instant now) {
    return minutes.due(now);
  }

  /** When the next held-back minutes record falls due, for the caller's timer. */
  public Optional<Instant> nextMinutesDue() {
    return minutes.nextDue();
  }

  /** What the owner's public minutes record says now. */
  public MinutesRecord minutesRecord(String ownerDid, Instant now) {
    return MinutesRecords.record(ownerDid, usage, config, now);
  }

  /**
   * Begins a stop. Cancels every run asked for by name, waiting or running (to be recorded and run
   * again at the next start), and drops every other waiting run, except one at the same repository
   * and commit as a running superseded: finish run, since a deploy may wait for its own commit's
   * other checks: those stay and may still start. From now on nothing may be submitted; call {@link
   * #stopDrops} after each run ends to drop what is no longer kept.
   */
  public List<Decision.Cancel> stop() {
    stopping = true;
    List<Decision.Cancel> out = new ArrayList<>();
    for (Entry e : List.copyOf(runs.values())) {
      if (e.request.askedByName() && e.live()) {
        cancel(e, CancelReason.STOP).ifPresent(out::add);
      }
    }
    out.addAll(stopDrops());
    return out;
  }

  /** During a stop, drops the waiting runs no running deploy at their commit keeps any more. */
  public List<Decision.Cancel> stopDrops() {
    List<Decision.Cancel> out = new ArrayList<>();
    if (!stopping) {
      return out;
    }
    java.util.Set<String> kept = new java.util.HashSet<>();
    for (Entry e : runs.values()) {
      if (e.state == Entry.State.RUNNING && e.request.needsTurn()) {
        kept.add(e.request.repo() + " " + e.request.revision());
      }
    }
    for (Entry e : List.copyOf(runs.values())) {
      if (e.state == Entry.State.WAITING
          && !kept.contains(e.request.repo() + " " + e.request.revision())) {
        cancel(e, CancelReason.STOP).ifPresent(out::add);
      }
    }
    out.sort(java.util.Comparator.comparing(Decision.Cancel::runId));
    return out;
  }

  private boolean classCapped(RunClass runClass) {
    return runClass.sharesPullJobs() && holdings.pullRunning() >= config.pullJobs();
  }

  /** What holds this run back, of what is its own (its turn, its owner's caps), or null. */
  private WaitReason ownBlock(Entry e, LocalDate today) {
    if (e.request.needsTurn()
        && ((!e.holdsTurn && turns.containsKey(e.request.workKey()))
            || heldElsewhere.turns().contains(e.request.workKey()))) {
      return WaitReason.TURN;
    }
    if (pastAllowance(e, today) && holdings.owner(e.owner(), e.request.privateRepo()) > 0) {
      return WaitReason.ALLOWANCE;
    }
    if (holdings.owner(e.owner()) + heldElsewhere.ownerJobs().getOrDefault(e.owner(), 0)
        >= config.ownerJobs()) {
      return WaitReason.OWNER_CAP;
    }
    return null;
  }

  private WaitReason reason(Entry e, LocalDate today) {
    WaitReason own = ownBlock(e, today);
    if (own != null) {
      return own;
    }
    return classCapped(e.request.runClass()) ? WaitReason.CLASS_CAP : WaitReason.JOB;
  }

  private boolean pastAllowance(Entry e, LocalDate today) {
    RunRequest r = e.request;
    long allowance = config.allowanceMillis(r.ownerDid(), r.privateRepo());
    return allowance != SchedulerConfig.UNLIMITED
        && usage.usedMillis(r.ownerDid(), r.privateRepo(), today) >= allowance;
  }

  private void takeTurn(Entry e) {
    turns.put(e.request.workKey(), e);
    e.holdsTurn = true;
  }

  /** A run with no job: forgotten, unless it holds a turn until its check is filed. */
  private void ended(Entry e) {
    if (e.holdsTurn) {
      e.state = Entry.State.ENDED;
    } else {
      runs.remove(e.request.runId());
    }
  }

  private void forgetLive(Entry e) {
    WorkKey key = e.request.workKey();
    List<Entry> same = live.get(key);
    if (same != null) {
      same.remove(e);
      if (same.isEmpty()) {
        live.remove(key);
      }
    }
  }
}
