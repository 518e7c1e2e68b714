package dev.knotless.runner.reconcile;

import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.WantedRun;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What is due for a repository's refs in a pass. A ref is due when its generation is past the one
 * last run, or it is new to the runner, or its target is where runs were dropped at a stop (then
 * only those workflows run). A deleted ref never runs. A first watch is a baseline: nothing runs
 * and every generation is recorded, so a lost state file or a repository with many branches does
 * not run everything at once. Stateless and pure.
 */
public final class DuePlanner {
  private DuePlanner() {}

  /** Plans the refs' part of a pass from the repository as it is and what the runner recorded. */
  public static PassPlan plan(RepoView view, RepoState state, Watch watch) {
    List<String> deleted = deletedRefs(view, state);
    if (watch != Watch.KNOWN) {
      List<DueRef> due = new ArrayList<>();
      if (watch == Watch.FIRST_DISCOVERED) {
        view.ref(view.defaultRef())
            .ifPresent(
                tip ->
                    due.add(
                        new DueRef(
                            tip,
                            DueRef.Why.DISCOVERED,
                            List.of(),
                            RunClasses.forPush(tip.name(), view))));
      }
      return new PassPlan(true, due, List.of(), deleted, view.refs(), movedOn(view, state));
    }
    List<DueRef> due = new ArrayList<>();
    for (RefState ref : view.refs()) {
      dueRef(view, state, ref).ifPresent(due::add);
    }
    Map<String, RefState> byName = byName(view);
    List<AskedRun> asked = new ArrayList<>();
    for (Map.Entry<String, List<WantedRun>> w : state.wanted().entrySet()) {
      RefState ref = byName.get(w.getKey());
      if (ref != null) {
        asked.add(new AskedRun(ref, w.getValue()));
      }
    }
    return new PassPlan(false, due, asked, deleted, view.refs(), movedOn(view, state));
  }

  /** Runs dropped at a ref that now points elsewhere, or no longer exists. */
  private static List<DroppedRun> movedOn(RepoView view, RepoState state) {
    Map<String, RefState> byName = byName(view);
    List<DroppedRun> out = new ArrayList<>();
    for (DroppedRun d : state.dropped()) {
      if (!d.subject().startsWith("refs/")) {
        continue; // a pull's or a queue's, which their own planners settle
      }
      RefState now = byName.get(d.subject());
      if (now == null || !now.target().equals(d.commit())) {
        out.add(d);
      }
    }
    return out;
  }

  private static Optional<DueRef> dueRef(RepoView view, RepoState state, RefState ref) {
    Long last = state.refs().get(ref.name());
    if (last == null) {
      return Optional.of(due(view, ref, DueRef.Why.NEW, List.of()));
    }
    if (ref.generation() > last) {
      return Optional.of(due(view, ref, DueRef.Why.MOVED, List.of()));
    }
    Set<String> dropped = new LinkedHashSet<>();
    for (DroppedRun d : state.dropped()) {
      if (d.subject().equals(ref.name()) && d.commit().equals(ref.target())) {
        dropped.addAll(d.workflows());
      }
    }
    if (!dropped.isEmpty()) {
      return Optional.of(due(view, ref, DueRef.Why.DROPPED, List.copyOf(dropped)));
    }
    return Optional.empty();
  }

  private static DueRef due(RepoView view, RefState ref, DueRef.Why why, List<String> only) {
    return new DueRef(ref, why, only, RunClasses.forPush(ref.name(), view));
  }

  private static Map<String, RefState> byName(RepoView view) {
    Map<String, RefState> out = new HashMap<>();
    for (RefState r : view.refs()) {
      out.put(r.name(), r);
    }
    return out;
  }

  /** Refs the runner knows of (generation, dropped or wanted runs) that no longer exist. */
  private static List<String> deletedRefs(RepoView view, RepoState state) {
    Set<String> known = new LinkedHashSet<>(state.refs().keySet());
    for (DroppedRun d : state.dropped()) {
      if (d.subject().startsWith("refs/")) {
        known.add(d.subject());
      }
    }
    known.addAll(state.wanted().keySet());
    Map<String, RefState> byName = byName(view);
    List<String> gone = new ArrayList<>();
    for (String ref : known) {
      if (!byName.containsKey(ref)) {
        gone.add(ref);
      }
    }
    return gone;
  }
}
