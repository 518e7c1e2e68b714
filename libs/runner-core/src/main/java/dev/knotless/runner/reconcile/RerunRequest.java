package dev.knotless.runner.reconcile;

import java.util.Map;

/**
 * One of the owner's {@code dev.knotless.rerun} records for the repository, read from the owner's
 * PDS (never from an event).
 *
 * @param rkey the record key, a TID: later requests sort after earlier ones
 * @param ref the full ref name it names, or empty
 * @param pull the AT-URI of the pull it names, or empty
 * @param workflow the one workflow it asks for, or empty for all
 * @param variables variables for a run at a ref by name
 */
public record RerunRequest(
    String rkey, String ref, String pull, String workflow, Map<String, String> variables) {
  public RerunRequest {
    if (rkey == null || rkey.isBlank()) {
      throw new IllegalArgumentException("a rerun request needs its record key");
    }
    ref = ref == null ? "" : ref;
    pull = pull == null ? "" : pull;
    workflow = workflow == null ? "" : workflow;
    variables = variables == null ? Map.of() : Map.copyOf(variables);
  }
}
