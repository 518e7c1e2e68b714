package dev.knotless.runner.state;

import java.util.List;

/**
 * Workflows whose runs a stop dropped before they started, to run again at the next start if their
 * subject is still where it was.
 *
 * @param subject a full ref name, a pull's AT-URI, or {@code queue <ref>}
 * @param commit the commit (a pull's head, a batch's tip)
 * @param base the base tip for a pull or batch; empty for a ref
 * @param workflows the workflows dropped, by name
 */
public record DroppedRun(String subject, String commit, String base, List<String> workflows) {
  public DroppedRun {
    StateValues.requireText(subject, "a dropped run's subject");
    StateValues.requireText(commit, "a dropped run's commit");
    base = base == null ? "" : base;
    workflows = List.copyOf(workflows);
  }
}
