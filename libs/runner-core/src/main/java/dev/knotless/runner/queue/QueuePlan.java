package dev.knotless.runner.queue;

import dev.knotless.runner.queue.QueueState.Batch;
import dev.knotless.runner.queue.QueueState.Pull;
import dev.knotless.runner.queue.QueueState.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every decision of the merge queue (docs/merge.md), as transitions of a {@link QueueState}: which
 * pulls form the next batch, what lands, how a failing batch is halved until the pull that broke it
 * is ejected, and what a moved branch, a pull that left the queue or a restart do to the batches
 * under way. Pure: the caller builds tips, runs checks, pushes and files checks, and reports back.
 * Stateless and thread-safe.
 *
 * <p>Bisection: a failing batch of more than one pull is split in two halves, in queue order. The
 * first is checked alone on the same base while the second waits ({@link QueueState#pending}). If
 * the first passes it lands, and the culprit is in the second, which is then halved the same way
 * (or, a single pull, checked alone). If the first fails, the second is freed back into the queue,
 * unsuspected, and the first is halved. A single pull that fails alone on the branch tip is
 * ejected, naming the batch whose failure began the search. No batch is built ahead during a
 * bisection.
 */
public final class QueuePlan {

  private QueuePlan() {}

  /** What the caller does next. */
  public sealed interface Step permits Build, Check, Land, Eject, Cancel {}

  /** Make the batch's tip: each pull's head merged in order onto {@code batch.base()}. */
  public record Build(Batch batch) implements Step {}

  /** After a restart: adopt the batch's checks at its tip and base, or run them again. */
  public record Check(Batch batch) implements Step {}

  /** Push the batch's tip to the branch, refusing unless the branch is at its base. */
  public record Land(Batch batch) implements Step {}

  /**
   * Take the pull out of the queue and file a check saying why.
   *
   * @param foundBy the batch whose failure (or conflict) found it
   */
  public record Eject(Pull pull, long foundBy, String why) implements Step {}

  /** Cancel the batch's runs, if any; its pulls are free again unless ejected. */
  public record Cancel(Batch batch, String why) implements Step {}

  /** A new state and what to do. */
  public record Outcome(QueueState state, List<Step> steps) {
    public Outcome {
      steps = List.copyOf(steps);
    }
  }

  /**
   * Drops what went stale and builds what is due: batches holding a pull no longer queued at the
   * same head, or built on a base the branch is no longer at, are cancelled; then, with no
   * bisection under way, batches of up to {@code batch} pulls are started until {@code depth} are
   * running, each after the first built on the tip of the one before it.
   *
   * @param queued the open pulls queued on the branch, in queue order, whose pre-flights passed
   * @param branchTip where the branch is now
   */
  public static Outcome fill(
      QueueState s, List<Pull> queued, String branchTip, int batch, int depth) {
    if (batch < 1 || depth < 1) {
      throw new IllegalArgumentException("--batch and --depth must be at least 1");
    }
    List<Step> steps = new ArrayList<>();
    Set<Pull> live = Set.copyOf(queued);
    List<Batch> running = new ArrayList<>(s.running());
    List<Pull> pending = new ArrayList<>(s.pending());
    long foundBy = s.pendingFoundBy();
    for (int i = 0; i < running.size(); i++) {
      Batch b = running.get(i);
      String why = null;
      if (!live.containsAll(b.pulls())) {
        why = "a pull in it left the queue, closed or moved";
      } else if (i == 0 && b.base() != null && !b.base().equals(branchTip)) {
        why =
            s.baseRef() + " moved to " + shortSha(branchTip) + " under it; rebuilt on the new tip";
      }
      if (why != null) {
        cancelFrom(running, i, why, steps);
        if (i == 0) {
          // The bisection's findings were about the old base: start again on the new one.
          pending.clear();
          foundBy = 0;
        }
        break;
      }
    }
    pending.removeIf(p -> !live.contains(p));
    if (pending.isEmpty() && running.stream().allMatch(b -> b.foundBy() == 0)) {
      foundBy = 0;
    }
    long lastId = s.lastId();
    boolean bisecting = foundBy != 0 || running.stream().anyMatch(b -> b.foundBy() != 0);
    while (running.size() < depth && !(bisecting && !running.isEmpty())) {
      String base = running.isEmpty() ? branchTip : running.get(running.size() - 1).tip();
      if (base == null) {
        break; // the batch before is still building: build ahead once its tip is known
      }
      if (bisecting) {
        // The half that waited is the next thing to check, as a batch of its own.
        Outcome o = guilty(new QueueState(s.baseRef(), running, pending, foundBy, lastId), base);
        return new Outcome(o.state(), concat(steps, o.steps()));
      }
      QueueState now = new QueueState(s.baseRef(), running, pending, foundBy, lastId);
      // A pull queued twice is taken once, where it first stands.
      Set<String> seen = new java.util.HashSet<>();
      List<Pull> next =
          queued.stream()
              .filter(p -> !now.holds(p.uri()) && seen.add(p.uri()))
              .limit(batch)
              .toList();
      if (next.isEmpty()) {
        break;
      }
      Batch b = new Batch(++lastId, next, 0, base, null, Status.BUILDING);
      running.add(b);
      steps.add(new Build(b));
    }
    return new Outcome(new QueueState(s.baseRef(), running, pending, foundBy, lastId), steps);
  }

  /** The batch's tip is made: its checks run at it. */
  public static QueueState built(QueueState s, long id, String tip) {
    return replace(s, id, b -> b.with(b.base(), tip, Status.CHECKING));
  }

  /**
   * The batch cannot be made: {@code pull} conflicts with the base as the pulls before it in the
   * batch leave it. That pull is ejected; the batch and those built ahead on it are cancelled, and
   * their other pulls are free for the next batch.
   */
  public static Outcome conflict(QueueState s, long id, Pull pull, List<String> files) {
    List<Batch> running = new ArrayList<>(s.running());
    int i = indexOf(running, id);
    List<Step> steps = new ArrayList<>();
    Batch b = running.get(i);
    steps.add(
        new Eject(
            pull,
            b.foundBy() != 0 ? b.foundBy() : b.id(),
            "conflicts with "
                + s.baseRef()
                + " as batch "
                + b.id()
                + " would leave it, in "
                + String.join(", ", files)
                + ": merge the base into the head, or rebase it, and queue it again"));
    cancelFrom(running, i, "pull " + pull.uri() + " in it conflicts", steps);
    boolean bisection = b.foundBy() != 0;
    return new Outcome(
        new QueueState(
            s.baseRef(),
            running,
            bisection ? List.of() : s.pending(),
            bisection ? 0 : s.pendingFoundBy(),
            s.lastId()),
        steps);
  }

  /** Every run of the batch passed: it lands now if every batch before it has. */
  public static Outcome passed(QueueState s, long id) {
    QueueState next = replace(s, id, b -> b.with(b.base(), b.tip(), Status.PASSED));
    Batch first = next.running().get(0);
    return new Outcome(
        next, first.status() == Status.PASSED ? List.of(new Land(first)) : List.of());
  }

  /**
   * The first batch landed: its pulls are merged. The batch after it, built on its tip, is now on
   * the branch tip, and lands at once if it passed already. A bisection's waiting half is guilty
   * now that its sibling passed, and is checked next.
   */
  public static Outcome landed(QueueState s, long id) {
    List<Batch> running = new ArrayList<>(s.running());
    if (running.isEmpty() || running.get(0).id() != id) {
      throw new IllegalArgumentException("batch " + id + " is not the next to land");
    }
    Batch done = running.remove(0);
    QueueState next =
        new QueueState(s.baseRef(), running, s.pending(), s.pendingFoundBy(), s.lastId());
    if (!s.pending().isEmpty()) {
      return guilty(next, done.tip());
    }
    if (!running.isEmpty() && running.get(0).status() == Status.PASSED) {
      return new Outcome(next, List.of(new Land(running.get(0))));
    }
    return new Outcome(next, List.of());
  }

  /**
   * The landing push was refused: the branch moved to {@code branchTip}. Every batch is cancelled
   * and rebuilt on the new tip by the next {@link #fill}; nothing stale lands.
   */
  public static Outcome landRefused(QueueState s, String branchTip) {
    List<Batch> running = new ArrayList<>(s.running());
    List<Step> steps = new ArrayList<>();
    cancelFrom(
        running,
        0,
        s.baseRef() + " moved to " + shortSha(branchTip) + " before the batch landed; rebuilt",
        steps);
    return new Outcome(new QueueState(s.baseRef(), running, List.of(), 0, s.lastId()), steps);
  }

  /**
   * A run of the batch failed. The batches built ahead on it are cancelled. A single pull is
   * ejected; a bigger batch is halved and its first half checked on the same base.
   */
  public static Outcome failed(QueueState s, long id) {
    List<Batch> running = new ArrayList<>(s.running());
    int i = indexOf(running, id);
    Batch b = running.get(i);
    List<Step> steps = new ArrayList<>();
    cancelFrom(running, i + 1, "built on batch " + id + ", which failed", steps);
    running.remove(i);
    long foundBy = b.foundBy() != 0 ? b.foundBy() : b.id();
    // A failing sibling frees the waiting half: the culprit may be here alone.
    if (b.pulls().size() == 1) {
      Pull p = b.pulls().get(0);
      steps.add(
          new Eject(
              p,
              foundBy,
              "ejected from the merge queue: batch "
                  + foundBy
                  + " failed, and halving it found this pull, which fails alone on "
                  + s.baseRef()
                  + " at "
                  + shortSha(b.base())));
      return new Outcome(new QueueState(s.baseRef(), running, List.of(), 0, s.lastId()), steps);
    }
    int half = (b.pulls().size() + 1) / 2;
    long nextId = s.lastId() + 1;
    Batch first =
        new Batch(nextId, b.pulls().subList(0, half), foundBy, b.base(), null, Status.BUILDING);
    running.add(i, first);
    steps.add(new Build(first));
    return new Outcome(
        new QueueState(
            s.baseRef(), running, b.pulls().subList(half, b.pulls().size()), foundBy, nextId),
        steps);
  }

  /**
   * After a restart, what to do with each batch the state holds, given where the branch is now: a
   * first batch whose tip the branch is at landed before the stop and is adopted (never pushed
   * again); one the branch is still under lands if it had passed, and otherwise has its checks
   * adopted or run again; anything else is rebuilt.
   */
  public static Outcome resume(QueueState s, String branchTip) {
    List<Batch> running = new ArrayList<>(s.running());
    List<Step> steps = new ArrayList<>();
    if (running.isEmpty()) {
      return new Outcome(s, steps);
    }
    Batch first = running.get(0);
    if (branchTip.equals(first.tip())) {
      Outcome o = landed(s, first.id());
      return new Outcome(o.state(), o.steps());
    }
    if (!branchTip.equals(first.base())) {
      return landRefused(s, branchTip);
    }
    for (int i = 0; i < running.size(); i++) {
      Batch b = running.get(i);
      if (b.status() == Status.BUILDING) {
        // A half-made tip is made again; those built ahead on it wait for it.
        steps.add(new Build(b));
        cancelFrom(running, i + 1, "built ahead on a batch made again after a restart", steps);
        break;
      }
      if (i == 0 && b.status() == Status.PASSED) {
        steps.add(new Land(b));
      } else if (b.status() == Status.CHECKING) {
        steps.add(new Check(b));
      }
    }
    return new Outcome(
        new QueueState(s.baseRef(), running, s.pending(), s.pendingFoundBy(), s.lastId()), steps);
  }

  /** Checks the waiting half of a bisection on {@code base}: alone, or its first half. */
  private static Outcome guilty(QueueState s, String base) {
    List<Pull> suspect = s.pending();
    int half = suspect.size() == 1 ? 1 : (suspect.size() + 1) / 2;
    long id = s.lastId() + 1;
    Batch b =
        new Batch(id, suspect.subList(0, half), s.pendingFoundBy(), base, null, Status.BUILDING);
    List<Batch> running = new ArrayList<>(s.running());
    running.add(b);
    List<Pull> rest = suspect.subList(half, suspect.size());
    return new Outcome(
        new QueueState(s.baseRef(), running, rest, rest.isEmpty() ? 0 : s.pendingFoundBy(), id),
        List.of(new Build(b)));
  }

  private static void cancelFrom(List<Batch> running, int from, String why, List<Step> steps) {
    while (running.size() > from) {
      steps.add(new Cancel(running.remove(from), why));
    }
  }

  private static QueueState replace(
      QueueState s, long id, java.util.function.UnaryOperator<Batch> f) {
    List<Batch> running = new ArrayList<>(s.running());
    int i = indexOf(running, id);
    running.set(i, f.apply(running.get(i)));
    return new QueueState(s.baseRef(), running, s.pending(), s.pendingFoundBy(), s.lastId());
  }

  private static int indexOf(List<Batch> running, long id) {
    for (int i = 0; i < running.size(); i++) {
      if (running.get(i).id() == id) {
        return i;
      }
    }
    throw new IllegalArgumentException(
        "no batch "
            + id
            + " is running: "
            + running.stream().map(Batch::id).collect(Collectors.toList()));
  }

  private static List<Step> concat(List<Step> a, List<Step> b) {
    List<Step> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private static String shortSha(String sha) {
    return sha == null ? "?" : sha.length() > 12 ? sha.substring(0, 12) : sha;
  }
}
