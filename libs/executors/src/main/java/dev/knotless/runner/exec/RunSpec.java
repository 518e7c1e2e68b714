package dev.knotless.runner.exec;

import dev.knotless.runner.exec.cache.CacheRequest;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Everything one run needs: where the code is, which commit, the steps, their environment, the
 * masker and the limits. Immutable.
 *
 * @param mirror the runner's bare mirror of the repository; it must be on the same file system as
 *     the work root, since the checkout hard-links its objects
 * @param commit the commit to check out: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits
 * @param steps the steps in order, at least one
 * @param env every variable the steps see besides the few of the runner's own ({@link
 *     ShellExecutor#INHERITED}): the workflow's env, {@code KNOTLESS_RUN_*} and the granted
 *     secrets. Secret values are only ever here, never in an argument list. The executor adds
 *     {@code KNOTLESS_RUN_OUTPUTS}.
 * @param preamble lines written at the top of the log, before the first step (masked as all else):
 *     the variables of a run asked for by name, secrets not granted, an allowance note
 * @param filter masks every line before it is written or handed to a listener
 * @param limits the run's time limits
 * @param niceness how much lower than the runner's own the steps' CPU priority is: 0 (the default)
 *     runs them as the runner runs, 1 to 19 starts each step under {@code nice -n <niceness>}. At
 *     10 a busy step gets about a tenth of the CPU weight of one at 0, which is how runs other than
 *     main's leave the CPU to main's under the shell executor. The docker executor gives a run
 *     above 0 the lower CPU weight ({@code --cpu-shares 256}) instead
 * @param image the container image the workflow names, or empty for the executor's default ({@code
 *     --image}); the shell executor ignores it
 * @param trustedCode whether the code is vouched for by an owner named with {@code --trust} (a push
 *     to their repository): the docker executor then starts it with {@code --trusted-runtime}, and
 *     everyone else's with {@code --runtime}
 * @param runKey what names the run outside the process running it (the queue's check key), or
 *     empty; the pod executor puts it on the run's pod, where a scheduler taking over finds it
 * @param caches the workflow's cache paths and how this run may use them; the docker executor
 *     mounts them when it has a cache directory, the others ignore them
 */
public record RunSpec(
    Path mirror,
    String commit,
    List<ExecStep> steps,
    Map<String, String> env,
    List<String> preamble,
    OutputFilter filter,
    TimeLimits limits,
    int niceness,
    String image,
    boolean trustedCode,
    String runKey,
    CacheRequest caches) {

  /** The highest niceness {@code nice} takes. */
  public static final int MAX_NICENESS = 19;

  private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");

  /** Checks the values and copies the collections (env keeps its order). */
  public RunSpec {
    Objects.requireNonNull(mirror, "mirror");
    Objects.requireNonNull(commit, "commit");
    Objects.requireNonNull(filter, "output filter");
    Objects.requireNonNull(limits, "time limits");
    Objects.requireNonNull(image, "image (empty for the default)");
    Objects.requireNonNull(runKey, "run key (empty for none)");
    Objects.requireNonNull(caches, "caches (CacheRequest.NONE for none)");
    if (!SHA.matcher(commit).matches()) {
      throw new IllegalArgumentException(
          "commit must be 40 or 64 lowercase hex digits, got " + Quoting.quote(commit));
    }
    steps = List.copyOf(steps);
    if (steps.isEmpty()) {
      throw new IllegalArgumentException("a run needs at least one step");
    }
    env.forEach(
        (k, v) -> {
          if (k.isEmpty() || k.indexOf('=') >= 0 || k.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("bad environment name " + Quoting.quote(k));
          }
          // The value is never named: it may be a secret.
          Objects.requireNonNull(v, "value of environment variable " + k);
        });
    env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
    preamble = List.copyOf(preamble);
    if (niceness < 0 || niceness > MAX_NICENESS) {
      throw new IllegalArgumentException(
          "niceness must be 0 to " + MAX_NICENESS + ", got " + niceness);
    }
  }

  /** A run at the runner's own CPU priority (niceness 0). */
  public RunSpec(
      Path mirror,
      String commit,
      List<ExecStep> steps,
      Map<String, String> env,
      List<String> preamble,
      OutputFilter filter,
      TimeLimits limits) {
    this(mirror, commit, steps, env, preamble, filter, limits, 0, "", false, "", CacheRequest.NONE);
  }

  /** A run of {@code steps} at {@code commit} with no secrets, no preamble and default limits. */
  public static RunSpec of(Path mirror, String commit, List<ExecStep> steps) {
    return new RunSpec(
        mirror, commit, steps, Map.of(), List.of(), OutputFilter.none(), TimeLimits.defaults());
  }

  /** This run with {@code env} as its steps' environment. */
  public RunSpec withEnv(Map<String, String> env) {
    return new RunSpec(
        mirror,
        commit,
        steps,
        env,
        preamble,
        filter,
        limits,
        niceness,
        image,
        trustedCode,
        runKey,
        caches);
  }

  /** This run with {@code filter} masking its output. */
  public RunSpec withFilter(OutputFilter filter) {
    return new RunSpec(
        mirror,
        commit,
        steps,
        env,
        preamble,
        filter,
        limits,
        niceness,
        image,
        trustedCode,
        runKey,
        caches);
  }

  /** This run with {@code limits}. */
  public RunSpec withLimits(TimeLimits limits) {
    return new RunSpec(
        mirror,
        commit,
        steps,
        env,
        preamble,
        filter,
        limits,
        niceness,
        image,
        trustedCode,
        runKey,
        caches);
  }

  /** This run with {@code lines} at the top of its log. */
  public RunSpec withPreamble(List<String> lines) {
    return new RunSpec(
        mirror,
        commit,
        steps,
        env,
        lines,
        filter,
        limits,
        niceness,
        image,
        trustedCode,
        runKey,
        caches);
  }

  /** This run in containers of {@code image} (empty for the executor's default). */
  public RunSpec withImage(String image) {
    return new RunSpec(
        mirror,
        commit,
        steps,
        env,
        preamble,
        filter,
        limits,
        niceness,
        image,
        trustedCode,
        runKey,
        caches);
  }

  /** This run as code an owner named with {@code --trust} vouches for, or not. */
  public RunSpec withTrustedCode(boolean trustedCode) {
    return new RunSpec(
        mirror,
        commit,
        steps,
        env,
        preamble,
        filter,
        limits,
        niceness,
        image,
        trustedCode,
        runKey,
        caches);
  }

  /** This run with {@code caches} as its cache paths and their use. */
  public RunSpec withCaches(CacheRequest caches) {
    return new RunSpec(
        mirror,
        commit,
        steps,
        env,
        preamble,
        filter,
        limits,
        niceness,
        image,
        trustedCode,
        runKey,
        caches);
  }

  /** This run with its steps started at {@code niceness} (0 to {@link #MAX_NICENESS}). */
  public RunSpec withNiceness(int niceness) {
    return new RunSpec(
        mirror,
        commit,
        steps,
        env,
        preamble,
        filter,
        limits,
        niceness,
        image,
        trustedCode,
        runKey,
        caches);
  }

  /**
   * This run named {@code runKey} outside the process that runs it: the queue's check key, which a
   * pod carries so a scheduler that takes over finds the run's pod.
   */
  public RunSpec withRunKey(String runKey) {
    return new RunSpec(
        mirror,
        commit,
        steps,
        env,
        preamble,
        filter,
        limits,
        niceness,
        image,
        trustedCode,
        runKey,
        caches);
  }
}
