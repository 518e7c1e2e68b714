package dev.knotless.runner.secrets;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which secrets a run gets. A secret reaches a run's steps only if the workflow lists it, a grant
 * gives it to the repository (the operator's file first, then the owner's sealed ones), the grant's
 * refs, if any, match the run's ref, and the run is not a pull's or a merge-queue batch's.
 * Stateless and thread-safe.
 */
public final class Grants {

  private Grants() {}

  /**
   * The secrets a run gets, and a log line for each it asked for and does not get.
   *
   * @param values the granted values by name; {@link #toString()} shows only the names
   * @param logLines {@code ==> NAME is not granted to <repo> at <ref>} for each one not granted, in
   *     the workflow's order, for the top of the log; never a value
   */
  public record Result(Map<String, String> values, List<String> logLines) {
    /** Copies the collections. */
    public Result {
      values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
      logLines = List.copyOf(logLines);
    }

    @Override
    public String toString() {
      return "Grants.Result[granted=" + values.keySet() + ", " + logLines + "]";
    }
  }

  /**
   * Resolves the secrets of one run.
   *
   * @param wanted the names the workflow lists in {@code secrets}
   * @param label the repository's label, as the file keys it and the log names it
   * @param ref the run's ref (its KNOTLESS_RUN_REF), for the log line
   * @param pullOrBatch true for a pull's or a merge-queue batch's run, which gets none
   * @param file the operator's grants to the label ({@link SecretsFile#grants})
   * @param owner the owner's grants opened for this runner, by name; empty if none. The file wins a
   *     name both grant
   */
  public static Result resolve(
      List<String> wanted,
      String label,
      String ref,
      boolean pullOrBatch,
      Map<String, SecretGrant> file,
      Map<String, SecretGrant> owner) {
    Map<String, String> values = new LinkedHashMap<>();
    List<String> lines = new ArrayList<>();
    for (String name : wanted) {
      SecretGrant g = file.containsKey(name) ? file.get(name) : owner.get(name);
      if (!pullOrBatch && g != null && g.reaches(ref)) {
        values.put(name, g.value());
      } else {
        lines.add("==> " + name + " is not granted to " + label + " at " + ref);
      }
    }
    return new Result(values, lines);
  }
}
