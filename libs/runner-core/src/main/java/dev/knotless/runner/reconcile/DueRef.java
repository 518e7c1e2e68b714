package dev.knotless.runner.reconcile;

import dev.knotless.runner.schedule.RunClass;
import java.util.List;

/**
 * A ref whose workflows run in this pass, at its current target.
 *
 * @param ref the ref as it is now
 * @param why what made it due
 * @param onlyWorkflows the workflows to run, for a run dropped at a stop; empty for all
 * @param runClass the class its runs wait in
 */
public record DueRef(RefState ref, Why why, List<String> onlyWorkflows, RunClass runClass) {

  public DueRef {
    onlyWorkflows = List.copyOf(onlyWorkflows);
  }

  /** What made a ref due. */
  public enum Why {
    /** Its generation is past the one last run. */
    MOVED,
    /** The runner has not seen it before. */
    NEW,
    /** Its target is where runs were dropped at a stop: only those run again. */
    DROPPED,
    /** The default branch's tip of a repository just found naming the runner. */
    DISCOVERED
  }
}
