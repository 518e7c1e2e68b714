package dev.knotless.runner.workflow;

import java.util.List;

/**
 * One step of a workflow: a shell script run with {@code sh -ec}, or, before the shared steps are
 * put in place, a {@code uses} step naming a step file of another repository.
 *
 * @param name the step's name, unique in its workflow; {@code step <n>} (from 1) when the file
 *     gives none
 * @param run the script; empty for a {@code uses} step
 * @param refs the step's {@code on.refs}: the refs it runs at; empty means every run
 * @param timeoutSeconds the step's own limit in seconds, or 0 for none (the runner's applies)
 * @param uses the step file this step stands for, or null for a step that runs a script
 * @param sharedRefs for a step a shared step put in place, the {@code on.refs} of the {@code uses}
 *     step that brought it, which hold beside its own; empty otherwise
 * @param sees for a step a shared step put in place, the only secrets it is given (by name); null
 *     for every other step, which sees every secret the run is granted
 */
public record Step(
    String name,
    String run,
    List<Glob> refs,
    int timeoutSeconds,
    Uses uses,
    List<Glob> sharedRefs,
    List<String> sees) {

  /** Copies the lists so the record stays immutable. */
  public Step {
    refs = List.copyOf(refs);
    sharedRefs = List.copyOf(sharedRefs);
    sees = sees == null ? null : List.copyOf(sees);
  }

  /** A step that runs a script. */
  public Step(String name, String run, List<Glob> refs, int timeoutSeconds) {
    this(name, run, refs, timeoutSeconds, null, List.of(), null);
  }

  /** True for a step that a shared step's file put in place. */
  public boolean shared() {
    return sees != null;
  }

  /**
   * True if this step runs in a run at {@code ref}. Pass null for a pull's or a merge-queue batch's
   * run: those match no ref, so a step limited to refs never runs there.
   */
  public boolean runsAt(String ref) {
    return matches(refs, ref) && matches(sharedRefs, ref);
  }

  private static boolean matches(List<Glob> globs, String ref) {
    if (globs.isEmpty()) {
      return true;
    }
    return ref != null && globs.stream().anyMatch(g -> g.matches(ref));
  }

  /** The log line that explains why this step was left out, for under its {@code ==>} line. */
  public String leftOutNote(String ref) {
    String at = ref == null ? "a pull's or a batch's run, which matches no ref" : ref;
    if (!matches(sharedRefs, ref)) {
      return "skipped: the shared step's on.refs " + patterns(sharedRefs) + " does not match " + at;
    }
    return "skipped: on.refs " + patterns(refs) + " does not match " + at;
  }

  static String patterns(List<Glob> globs) {
    return globs.stream().map(Glob::pattern).toList().toString();
  }
}
