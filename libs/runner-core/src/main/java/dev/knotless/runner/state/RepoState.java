package dev.knotless.runner.state;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * What the runner remembers of one watched repository: every field of the state file kept per
 * repository. Immutable; each {@code with...} method returns a changed copy.
 *
 * @param refs each ref's generation last run, by full ref name ({@code repos} in the file)
 * @param pulls each open pull's head and base last run at or passed over at, by AT-URI
 * @param rerun the record key of the newest rerun request acted on; empty for none
 * @param asked pulls asked for and not yet run, by AT-URI
 * @param askedOnly of those, the ones asked for only some workflows, by name ({@code asked_only})
 * @param passed trusted pull and batch runs that passed, oldest first, at most {@link #MAX_PASSED}
 * @param dropped the workflows dropped at a stop, per subject, commit and base
 * @param wanted the workflows asked for by name and not yet run, per full ref name
 * @param used milliseconds of public steps per UTC day, for the last 30 days
 * @param usedPrivate the same for a private repository ({@code used_private})
 * @param queues each branch's merge queue this runner lands, by full ref ({@code queue})
 * @param ejected pulls ejected from the merge queue, by AT-URI, to the head they were ejected at:
 *     such a pull comes back only when its head moves
 */
public record RepoState(
    Map<String, Long> refs,
    Map<String, PullMark> pulls,
    String rerun,
    Set<String> asked,
    Map<String, Set<String>> askedOnly,
    List<PassedRun> passed,
    List<DroppedRun> dropped,
    Map<String, List<WantedRun>> wanted,
    SortedMap<LocalDate, Long> used,
    SortedMap<LocalDate, Long> usedPrivate,
    Map<String, dev.knotless.runner.queue.QueueState> queues,
    Map<String, String> ejected) {

  /** The most passed runs kept per repository; the oldest go first. */
  public static final int MAX_PASSED = 256;

  /** How many days of usage are kept, today included. */
  public static final int USAGE_DAYS = 30;

  private static final RepoState EMPTY =
      new RepoState(null, null, "", null, null, null, null, null, null, null, null, null);

  /** Without a merge queue: a runner not started with {@code --queue}, or a state store without. */
  public RepoState(
      Map<String, Long> refs,
      Map<String, PullMark> pulls,
      String rerun,
      Set<String> asked,
      Map<String, Set<String>> askedOnly,
      List<PassedRun> passed,
      List<DroppedRun> dropped,
      Map<String, List<WantedRun>> wanted,
      SortedMap<LocalDate, Long> used,
      SortedMap<LocalDate, Long> usedPrivate) {
    this(
        refs,
        pulls,
        rerun,
        asked,
        askedOnly,
        passed,
        dropped,
        wanted,
        used,
        usedPrivate,
        null,
        null);
  }

  public RepoState {
    refs = StateValues.map(refs);
    pulls = StateValues.map(pulls);
    rerun = rerun == null ? "" : rerun;
    asked = StateValues.set(asked);
    Map<String, Set<String>> only = new LinkedHashMap<>();
    if (askedOnly != null) {
      askedOnly.forEach((k, v) -> only.put(k, StateValues.set(v)));
    }
    askedOnly = StateValues.map(only);
    passed = StateValues.list(passed);
    if (passed.size() > MAX_PASSED) {
      passed = List.copyOf(passed.subList(passed.size() - MAX_PASSED, passed.size()));
    }
    dropped = StateValues.list(dropped);
    Map<String, List<WantedRun>> want = new LinkedHashMap<>();
    if (wanted != null) {
      wanted.forEach((k, v) -> want.put(k, StateValues.list(v)));
    }
    wanted = StateValues.map(want);
    used = StateValues.sorted(used);
    usedPrivate = StateValues.sorted(usedPrivate);
    queues = StateValues.map(queues);
    ejected = StateValues.map(ejected);
  }

  /** Nothing remembered: a repository watched for the first time, or whose state was lost. */
  public static RepoState empty() {
    return EMPTY;
  }

  /** A copy with the ref's generation last run. */
  public RepoState withRef(String ref, long generation) {
    return change(b -> b.refs.put(ref, generation));
  }

  /** A copy forgetting a ref's generation and dropped runs (a deleted ref, or a rerun of it). */
  public RepoState forgetRef(String ref) {
    return change(
        b -> {
          b.refs.remove(ref);
          b.dropped.removeIf(d -> d.subject().equals(ref));
        });
  }

  /**
   * A copy forgetting a deleted ref's generation, so a ref made again under its name is new; its
   * dropped runs are left for the pass to end.
   */
  public RepoState withoutGeneration(String ref) {
    return change(b -> b.refs.remove(ref));
  }

  /** A copy with where a pull last ran. */
  public RepoState withPull(String pullUri, PullMark mark) {
    return change(b -> b.pulls.put(pullUri, mark));
  }

  /** A copy forgetting where a pull last ran, so it runs again where it is now. */
  public RepoState withoutPull(String pullUri) {
    return change(b -> b.pulls.remove(pullUri));
  }

  /** A copy with the newest rerun request acted on. */
  public RepoState withRerun(String rkey) {
    return change(b -> b.rerun = rkey);
  }

  /** A copy with a passed run added; past {@link #MAX_PASSED} the oldest is forgotten. */
  public RepoState withPassed(PassedRun run) {
    return change(b -> b.passed.add(run));
  }

  /** A copy with a run dropped at a stop, merged with any dropped at the same place. */
  public RepoState withDropped(DroppedRun run) {
    return change(
        b -> {
          List<String> workflows = new ArrayList<>();
          b.dropped.removeIf(
              d -> {
                boolean same =
                    d.subject().equals(run.subject())
                        && d.commit().equals(run.commit())
                        && d.base().equals(run.base());
                if (same) {
                  workflows.addAll(d.workflows());
                }
                return same;
              });
          for (String w : run.workflows()) {
            if (!workflows.contains(w)) {
              workflows.add(w);
            }
          }
          b.dropped.add(new DroppedRun(run.subject(), run.commit(), run.base(), workflows));
        });
  }

  /** A copy without the dropped runs of a subject, once they ran or their subject moved on. */
  public RepoState withoutDropped(String subject) {
    return change(b -> b.dropped.removeIf(d -> d.subject().equals(subject)));
  }

  /**
   * A copy without what a pass at {@code commit} of {@code subject} ran: at this commit, the
   * workflows in {@code ran}, or all of them when it is empty. A workflow dropped there after the
   * pass read the state (another worker's run recovered meanwhile) stays, for the next pass to run;
   * so does a run dropped meanwhile at a commit the subject moved on from, for the next pass to end
   * (the ones the pass saw were ended and forgotten as it planned: {@code PassPlan.settle}).
   */
  public RepoState withoutDroppedRan(String subject, String commit, Collection<String> ran) {
    return withoutDroppedAt(subject, commit, null, ran);
  }

  /** As {@link #withoutDroppedRan(String, String, Collection)}, for a pull at a head and base. */
  public RepoState withoutDroppedRan(
      String subject, String commit, String base, Collection<String> ran) {
    return withoutDroppedAt(subject, commit, base, ran);
  }

  /** Drops at {@code subject} and {@code commit}, on {@code base} unless it is null. */
  private RepoState withoutDroppedAt(
      String subject, String commit, String base, Collection<String> ran) {
    return change(
        b -> {
          List<DroppedRun> keep = new ArrayList<>();
          for (DroppedRun d : b.dropped) {
            if (!d.subject().equals(subject)
                || !d.commit().equals(commit)
                || (base != null && !d.base().equals(base))) {
              keep.add(d);
            } else if (!ran.isEmpty()) {
              List<String> rest = d.workflows().stream().filter(w -> !ran.contains(w)).toList();
              if (!rest.isEmpty()) {
                keep.add(new DroppedRun(d.subject(), d.commit(), d.base(), rest));
              }
            }
          }
          b.dropped.clear();
          b.dropped.addAll(keep);
        });
  }

  /**
   * A copy without the workflows of {@code seen}, at its subject, commit and base, as a pass read
   * them: one dropped there since stays.
   */
  public RepoState withoutDropped(DroppedRun seen) {
    return withoutDroppedRan(seen.subject(), seen.commit(), seen.base(), seen.workflows());
  }

  /** A copy with a workflow wanted by name at a ref, replacing an earlier wish for it there. */
  public RepoState withWanted(String ref, WantedRun run) {
    return change(
        b -> {
          List<WantedRun> list = new ArrayList<>(b.wanted.getOrDefault(ref, List.of()));
          list.removeIf(w -> w.workflow().equals(run.workflow()));
          list.add(run);
          b.wanted.put(ref, list);
        });
  }

  /** A copy without the runs wanted at a ref: they ran, or the ref is gone. */
  public RepoState withoutWanted(String ref) {
    return change(b -> b.wanted.remove(ref));
  }

  /**
   * A copy without the wishes at {@code ref} that were filed, as the pass read them. A wish made
   * there since (a stopping worker's, handed back meanwhile, or the same workflow asked for again
   * with other variables) stays, for the next pass.
   */
  public RepoState withoutWanted(String ref, List<WantedRun> filed) {
    return change(
        b -> {
          List<WantedRun> rest = new ArrayList<>(b.wanted.getOrDefault(ref, List.of()));
          rest.removeAll(filed);
          if (rest.isEmpty()) {
            b.wanted.remove(ref);
          } else {
            b.wanted.put(ref, rest);
          }
        });
  }

  /**
   * A copy with step time added to {@code day}, public or private, forgetting days that no longer
   * count as of {@code today}.
   */
  public RepoState withUsage(LocalDate day, long millis, boolean privateRepo, LocalDate today) {
    return change(
        b -> {
          TreeMap<LocalDate, Long> days = privateRepo ? b.usedPrivate : b.used;
          days.merge(day, millis, Long::sum);
          LocalDate first = today.minusDays(USAGE_DAYS - 1L);
          b.used.headMap(first).clear();
          b.usedPrivate.headMap(first).clear();
        });
  }

  /** A copy with pulls asked for (all workflows, or {@code only} some when not empty). */
  public RepoState withAsked(String pullUri, Set<String> only) {
    return change(
        b -> {
          b.asked.add(pullUri);
          if (only.isEmpty()) {
            b.askedOnly.remove(pullUri);
          } else {
            Set<String> s = new HashSet<>(b.askedOnly.getOrDefault(pullUri, Set.of()));
            s.addAll(only);
            b.askedOnly.put(pullUri, s);
          }
        });
  }

  /** A copy without an ask for a pull: it ran, or it closed. */
  public RepoState withoutAsked(String pullUri) {
    if (!asked.contains(pullUri) && !askedOnly.containsKey(pullUri)) {
      return this;
    }
    return change(
        b -> {
          b.asked.remove(pullUri);
          b.askedOnly.remove(pullUri);
        });
  }

  /** A copy with a branch's merge queue; an empty queue is forgotten. */
  public RepoState withQueue(dev.knotless.runner.queue.QueueState queue) {
    return change(
        b -> {
          // An idle queue is kept for its last batch id, so a check names a batch once.
          if (queue.running().isEmpty() && queue.pending().isEmpty() && queue.lastId() == 0) {
            b.queues.remove(queue.baseRef());
          } else {
            b.queues.put(queue.baseRef(), queue);
          }
        });
  }

  /** A copy remembering that a pull was ejected from the merge queue at {@code head}. */
  public RepoState withEjected(String pullUri, String head) {
    return change(b -> b.ejected.put(pullUri, head));
  }

  /** A copy forgetting an ejection: the pull moved, closed or left the queue. */
  public RepoState withoutEjected(String pullUri) {
    if (!ejected.containsKey(pullUri)) {
      return this;
    }
    return change(b -> b.ejected.remove(pullUri));
  }

  private RepoState change(Consumer<Builder> edit) {
    Builder b = new Builder(this);
    edit.accept(b);
    return b.build();
  }

  /** Mutable copies of every field, for the {@code with...} methods. */
  private static final class Builder {
    final Map<String, Long> refs;
    final Map<String, PullMark> pulls;
    String rerun;
    final Set<String> asked;
    final Map<String, Set<String>> askedOnly;
    final List<PassedRun> passed;
    final List<DroppedRun> dropped;
    final Map<String, List<WantedRun>> wanted;
    final TreeMap<LocalDate, Long> used;
    final TreeMap<LocalDate, Long> usedPrivate;
    final Map<String, dev.knotless.runner.queue.QueueState> queues;
    final Map<String, String> ejected;

    Builder(RepoState s) {
      refs = new LinkedHashMap<>(s.refs);
      pulls = new LinkedHashMap<>(s.pulls);
      rerun = s.rerun;
      asked = new java.util.LinkedHashSet<>(s.asked);
      askedOnly = new HashMap<>(s.askedOnly);
      passed = new ArrayList<>(s.passed);
      dropped = new ArrayList<>(s.dropped);
      wanted = new LinkedHashMap<>(s.wanted);
      used = new TreeMap<>(s.used);
      usedPrivate = new TreeMap<>(s.usedPrivate);
      queues = new LinkedHashMap<>(s.queues);
      ejected = new LinkedHashMap<>(s.ejected);
    }

    RepoState build() {
      return new RepoState(
          refs,
          pulls,
          rerun,
          asked,
          askedOnly,
          passed,
          dropped,
          wanted,
          used,
          usedPrivate,
          queues,
          ejected);
    }
  }
}
