package dev.knotless.runner.workflow;

import java.util.List;

/**
 * One step of a workflow: a shell script run with {@code sh -ec}.
 *
 * @param name the step's name, unique in its workflow; {@code step <n>} (from 1) when the file
 *     gives none
 * @param run the script
 * @param refs the step's {@code on.refs}: the refs it runs at; empty means every run
 * @param timeoutSeconds the step's own limit in seconds, or 0 for none (the runner's applies)
 */
public record Step(String name, String run, List<Glob> refs, int timeoutSeconds) {

  /** Copies the list so the record stays immutable. */
  public Step {
    refs = List.copyOf(refs);
  }

  /**
   * True if this step runs in a run at {@code ref}. Pass null for a pull's or a merge-queue batch's
   * run: those match no ref, so a step limited to refs never runs there.
   */
  public boolean runsAt(String ref) {
    if (refs.isEmpty()) {
      return true;
    }
    return ref != null && refs.stream().anyMatch(g -> g.matches(ref));
  }

  /** The log line that explains why this step was left out, for under its {@code ==>} line. */
  public String leftOutNote(String ref) {
    String at = ref == null ? "a pull's or a batch's run, which matches no ref" : ref;
    return "skipped: on.refs " + patterns(refs) + " does not match " + at;
  }

  static String patterns(List<Glob> globs) {
    return globs.stream().map(Glob::pattern).toList().toString();
  }
}
