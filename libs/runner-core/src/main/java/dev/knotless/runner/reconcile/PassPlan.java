package dev.knotless.runner.reconcile;

import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.RepoState;
import java.util.List;

/**
 * What a pass runs for the repository's refs, and how the state changes as it goes. Apply {@link
 * #settle} at once (it only forgets what can never run, or records a baseline; when {@link
 * #settles} is false it changes nothing), then, after each due ref's checks are filed, {@link
 * #filed}, and after asked runs are filed, {@link #askedFiled}. A pass that fails between those
 * steps loses nothing: what was not recorded is due again. Immutable.
 *
 * @param baseline whether this is a first watch: nothing runs but {@code due} (at most the
 *     discovered default branch's tip), and every ref's generation is recorded
 * @param due refs whose workflows run now
 * @param asked workflows asked for by name at refs that exist
 * @param deleted refs the runner knew that are gone: never run, forgotten
 * @param refs every ref as it is now, which a baseline records
 * @param movedOn runs dropped at a stop at a ref that has since moved on or been deleted, as the
 *     planned state held them: they never run (a newer commit runs all its workflows). In the
 *     distributed shape their checks were left queued when they were handed back, so the caller
 *     ends them; {@link #settle} then forgets them.
 */
public record PassPlan(
    boolean baseline,
    List<DueRef> due,
    List<AskedRun> asked,
    List<String> deleted,
    List<RefState> refs,
    List<DroppedRun> movedOn) {

  public PassPlan {
    due = List.copyOf(due);
    asked = List.copyOf(asked);
    deleted = List.copyOf(deleted);
    refs = List.copyOf(refs);
    movedOn = List.copyOf(movedOn);
  }

  /**
   * The state with deleted refs' generations and wanted runs forgotten, the {@link #movedOn} runs
   * forgotten, and for a baseline every ref's generation recorded except the ones due. It is
   * applied to the state as stored when the pass writes, which may hold runs dropped after the pass
   * read it (a stopping worker's, recovered meanwhile): those are kept, since no one ended their
   * checks, and the next pass names them.
   */
  public RepoState settle(RepoState state) {
    RepoState s = state;
    for (DroppedRun d : movedOn) {
      s = s.withoutDropped(d);
    }
    for (String ref : deleted) {
      s = s.withoutGeneration(ref).withoutWanted(ref);
    }
    if (baseline) {
      for (RefState r : refs) {
        if (due.stream().noneMatch(d -> d.ref().name().equals(r.name()))) {
          s = s.withRef(r.name(), r.generation());
        }
      }
    }
    return s;
  }

  /**
   * Whether {@link #settle} can change any state: false when it is not a baseline and forgets
   * nothing, so a pass that then files nothing need not lock, read or write the state at all.
   */
  public boolean settles() {
    return baseline || !deleted.isEmpty() || !movedOn.isEmpty();
  }

  /**
   * The state once a due ref's checks are filed: its generation recorded, and the runs dropped at
   * its commit that ran now forgotten. A run dropped after the pass planned (and so neither run nor
   * ended by it) is kept for the next pass: at this commit to run, at one the ref moved on from to
   * be ended as moved on.
   */
  public static RepoState filed(RepoState state, DueRef due) {
    RefState ref = due.ref();
    return state
        .withoutDroppedRan(ref.name(), ref.target(), due.onlyWorkflows())
        .withRef(ref.name(), ref.generation());
  }

  /**
   * The state once the runs asked for at a ref are filed: those wishes forgotten, and any made
   * there since the pass read the state kept.
   */
  public static RepoState askedFiled(RepoState state, AskedRun asked) {
    return state.withoutWanted(asked.ref().name(), asked.runs());
  }
}
