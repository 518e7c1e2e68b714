package dev.knotless.runner.workflow;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A workflow that parsed. The format is in docs/workflows.md; {@link WorkflowSet#load} makes them.
 *
 * <p>The decisions here are pure: what a push runs ({@link #runsOnPush}, {@link #pathsMatch}), what
 * a pull runs ({@link #runsOnPullInto}, {@link #pullPathsMatch}), what may be asked for by name
 * ({@link #mayRunByName}) and which steps run at a ref ({@link Step#runsAt}). Refs are always full
 * names such as {@code refs/heads/main}. Immutable and thread-safe.
 *
 * @param file the file's path in the repository, such as {@code .knotless/workflows/ci.yml}
 * @param name the workflow's name: {@code name}, or the file name without its extension
 * @param push {@code on.push}, or null when the workflow does not run on pushes
 * @param pull {@code on.pull}, or null when it does not run on pulls
 * @param asked {@code on.asked}, or null when it may not be asked for except as a push workflow
 * @param image the container image for the docker executor, or null for the runner's default
 * @param env variables every step sees, in file order
 * @param secrets the names of the secrets the workflow asks for
 * @param cache the paths in the container kept between runs
 * @param superseded what a newer commit's run does to this one
 * @param runners the DIDs of the runners that run it; empty means every runner the repository names
 * @param preflight true for {@code queue: first}: a pre-flight of the merge queue
 * @param steps the steps, at least one
 */
public record Workflow(
    String file,
    String name,
    Triggers.Push push,
    Triggers.Pull pull,
    Triggers.Asked asked,
    String image,
    Map<String, String> env,
    List<String> secrets,
    List<String> cache,
    Superseded superseded,
    List<String> runners,
    boolean preflight,
    List<Step> steps) {

  /** Copies the collections (env keeps its order). */
  public Workflow {
    env = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(env));
    secrets = List.copyOf(secrets);
    cache = List.copyOf(cache);
    runners = List.copyOf(runners);
    steps = List.copyOf(steps);
  }

  /** The same workflow with other steps: its shared steps put in place. */
  public Workflow withSteps(List<Step> newSteps) {
    return new Workflow(
        file,
        name,
        push,
        pull,
        asked,
        image,
        env,
        secrets,
        cache,
        superseded,
        runners,
        preflight,
        newSteps);
  }

  /** The step files its {@code uses} steps name, in order; empty when it uses none. */
  public List<Uses> uses() {
    return steps.stream().map(Step::uses).filter(java.util.Objects::nonNull).toList();
  }

  /** True if shared steps were put in place in it: what a step given secrets leaves is ended. */
  public boolean hasSharedSteps() {
    return steps.stream().anyMatch(Step::shared);
  }

  /** True if a push to the full ref name runs this workflow (before paths are looked at). */
  public boolean runsOnPush(String ref) {
    return push != null && push.matchesRef(ref);
  }

  /**
   * True if a push whose changed files are {@code changed} runs it, as far as {@code on.push.paths}
   * goes. Null means the change set is unknown (a new ref, say), and then nothing is skipped.
   */
  public boolean pathsMatch(Collection<String> changed) {
    return push == null || Triggers.anyPathMatches(push.paths(), changed);
  }

  /** True if a pull into the full base ref name runs this workflow (before paths). */
  public boolean runsOnPullInto(String baseRef) {
    return pull != null && pull.matchesBase(baseRef);
  }

  /** As {@link #pathsMatch} for {@code on.pull.paths}. */
  public boolean pullPathsMatch(Collection<String> changed) {
    return pull == null || Triggers.anyPathMatches(pull.paths(), changed);
  }

  /**
   * True if it may run by name at the full ref name: it runs on a push to that ref, or its {@code
   * on.asked.refs} matches. Runs by name ignore paths.
   */
  public boolean mayRunByName(String ref) {
    return runsOnPush(ref) || (asked != null && asked.matchesRef(ref));
  }

  /** The note of a check filed as skipped because no changed file matched the push's paths. */
  public String pathsSkipNote() {
    return "skipped: no changed file matches on.push.paths "
        + Step.patterns(push == null ? List.of() : push.paths());
  }

  /** As {@link #pathsSkipNote} for a pull's paths. */
  public String pullPathsSkipNote() {
    return "skipped: no changed file matches on.pull.paths "
        + Step.patterns(pull == null ? List.of() : pull.paths());
  }

  /**
   * True if a run at {@code ref} leaves out a step for its ref (null: a pull's or batch's run).
   * Such a run is never kept for a push to reuse.
   */
  public boolean leavesOutStepsAt(String ref) {
    return steps.stream().anyMatch(s -> !s.runsAt(ref));
  }

  /** True if the runner with this DID runs it: the workflow names no runners, or names this one. */
  public boolean runsOnRunner(String runnerDid) {
    return runners.isEmpty() || runners.contains(runnerDid);
  }
}
