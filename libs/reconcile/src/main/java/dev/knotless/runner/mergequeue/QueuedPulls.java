package dev.knotless.runner.mergequeue;

import dev.knotless.runner.pass.Watched;
import dev.knotless.runner.pullpass.PullPass;
import dev.knotless.runner.queue.QueuePlan;
import dev.knotless.runner.queue.QueueState;
import dev.knotless.runner.queue.QueueState.Pull;
import dev.knotless.runner.schedule.PausedOwners;
import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.StateStore;
import dev.knotless.storage.Snapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The pulls that stand in a repository's merge queue in one pass, per branch, in queue order: those
 * its queue records name that are open, not drafts, not ejected at their head, and whose
 * pre-flights passed ({@link PreFlightGate}), or that are in a batch at their head already. Also
 * forgets the ejections of pulls whose head moved. Thread-safe.
 */
final class QueuedPulls {

  private final StateStore state;
  private final PreFlightGate preflights;

  QueuedPulls(StateStore state, PreFlightGate preflights) {
    this.state = state;
    this.preflights = preflights;
  }

  /**
   * The queued pulls by base branch.
   *
   * @param open every open pull the pulls step found, by AT-URI
   */
  Map<String, List<Pull>> byBranch(
      Watched repo,
      Snapshot snap,
      QueueRecords.Queue queue,
      Map<String, PullPass.Found> open,
      PullPass.MirrorSync sync,
      PausedOwners paused,
      Consumer<String> stage)
      throws IOException {
    RepoState before = state.load(repo.stateKey()).orElse(RepoState.empty());
    Map<String, List<Pull>> byBranch = new LinkedHashMap<>();
    Set<String> stillEjected = new HashSet<>();
    for (QueueRecords.Queued q : queue.entries()) {
      PullPass.Found f = open.get(q.pull());
      if (f == null || f.pull().draft()) {
        continue; // closed, gone, or a draft: not queued
      }
      String head = f.at().head();
      if (head.equals(before.ejected().get(q.pull()))) {
        stillEjected.add(q.pull());
        continue; // ejected at this head: back only when its head moves
      }
      Pull pull = new Pull(q.pull(), head);
      String ref = f.pull().base().ref();
      QueueState branch = before.queues().getOrDefault(ref, QueueState.empty(ref));
      // Once in a batch at this head it stays; before that, its pre-flights must pass.
      if (!holds(branch, pull)) {
        stage.accept("reading the pre-flights of " + q.pull());
        if (!preflights.ready(repo, snap, sync.mirror(), f, paused)) {
          continue;
        }
      }
      byBranch.computeIfAbsent(ref, k -> new ArrayList<>()).add(pull);
    }
    for (String uri : before.ejected().keySet()) {
      if (!stillEjected.contains(uri)) {
        state.update(repo.stateKey(), s -> s.withoutEjected(uri));
      }
    }
    return byBranch;
  }

  /** Whether the pull, at this head, is in a batch under way or waiting in a bisection. */
  private static boolean holds(QueueState s, Pull p) {
    return s.pending().contains(p) || s.running().stream().anyMatch(b -> b.pulls().contains(p));
  }

  /**
   * A stop records the batch runs it dropped as it does a push's or a pull's, under the subject
   * {@code queue <branch>}. Nothing runs those again by that record: the queue's own state resumes
   * its batches ({@link QueuePlan#resume}), so the records are dropped here rather than kept
   * forever.
   */
  static void forgetDroppedBatches(StateStore state, Watched repo) {
    RepoState now = state.load(repo.stateKey()).orElse(RepoState.empty());
    Set<String> subjects = new HashSet<>();
    now.dropped().stream()
        .map(DroppedRun::subject)
        .filter(sub -> sub.startsWith(QueuePass.BATCH_SUBJECT))
        .forEach(subjects::add);
    if (!subjects.isEmpty()) {
      state.update(
          repo.stateKey(),
          r -> {
            RepoState out = r;
            for (String sub : subjects) {
              out = out.withoutDropped(sub);
            }
            return out;
          });
    }
  }
}
