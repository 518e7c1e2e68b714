package dev.knotless.runner.exec;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Everything one run needs, in terms every executor understands: where the code is, which commit,
 * the steps, their environment, the masker and the limits. What only some executors mean something
 * by (the workflow's container image, its caches, the run's key on a pod) travels in {@link
 * #options}, which each executor decodes for itself. Immutable.
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
 * @param trustedCode whether the code is vouched for by an owner named with {@code --trust} (a push
 *     to their repository): executors with a sandbox then start it with {@code --trusted-runtime},
 *     and everyone else's with {@code --runtime}
 * @param options what the run asks of particular executors ({@link ContainerImage}, the cache
 *     request, the pod's run key); an executor ignores the options it does not know
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
    boolean trustedCode,
    ExecutorOptions options) {

  /** The highest niceness {@code nice} takes. */
  public static final int MAX_NICENESS = 19;

  private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");

  /** Checks the values and copies the collections (env keeps its order). */
  public RunSpec {
    Objects.requireNonNull(mirror, "mirror");
    Objects.requireNonNull(commit, "commit");
    Objects.requireNonNull(filter, "output filter");
    Objects.requireNonNull(limits, "time limits");
    Objects.requireNonNull(options, "executor options (ExecutorOptions.NONE for none)");
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

  /** A run at the runner's own CPU priority (niceness 0), untrusted, with no executor options. */
  public RunSpec(
      Path mirror,
      String commit,
      List<ExecStep> steps,
      Map<String, String> env,
      List<String> preamble,
      OutputFilter filter,
      TimeLimits limits) {
    this(mirror, commit, steps, env, preamble, filter, limits, 0, false, ExecutorOptions.NONE);
  }

  /** A run of {@code steps} at {@code commit} with no secrets, no preamble and default limits. */
  public static RunSpec of(Path mirror, String commit, List<ExecStep> steps) {
    return new RunSpec(
        mirror, commit, steps, Map.of(), List.of(), OutputFilter.none(), TimeLimits.defaults());
  }

  /** A builder holding this run's values, to change some and build a copy. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** This run with {@code env} as its steps' environment. */
  public RunSpec withEnv(Map<String, String> env) {
    return toBuilder().env(env).build();
  }

  /** This run with {@code filter} masking its output. */
  public RunSpec withFilter(OutputFilter filter) {
    return toBuilder().filter(filter).build();
  }

  /** This run with {@code limits}. */
  public RunSpec withLimits(TimeLimits limits) {
    return toBuilder().limits(limits).build();
  }

  /** This run with {@code lines} at the top of its log. */
  public RunSpec withPreamble(List<String> lines) {
    return toBuilder().preamble(lines).build();
  }

  /** This run as code an owner named with {@code --trust} vouches for, or not. */
  public RunSpec withTrustedCode(boolean trustedCode) {
    return toBuilder().trustedCode(trustedCode).build();
  }

  /** This run with its steps started at {@code niceness} (0 to {@link #MAX_NICENESS}). */
  public RunSpec withNiceness(int niceness) {
    return toBuilder().niceness(niceness).build();
  }

  /** This run with {@code option} in its executor options, in place of any of its type. */
  public RunSpec withOption(Object option) {
    return toBuilder().options(options.with(option)).build();
  }

  /** This run with {@code option} in its executor options when present, else as it is. */
  public RunSpec withAnyOption(java.util.Optional<?> option) {
    return option.<RunSpec>map(this::withOption).orElse(this);
  }

  /**
   * A run's values being changed; {@link #build} checks them as the constructor does. Not
   * thread-safe.
   */
  public static final class Builder {
    private final Path mirror;
    private final String commit;
    private final List<ExecStep> steps;
    private Map<String, String> env;
    private List<String> preamble;
    private OutputFilter filter;
    private TimeLimits limits;
    private int niceness;
    private boolean trustedCode;
    private ExecutorOptions options;

    private Builder(RunSpec s) {
      mirror = s.mirror;
      commit = s.commit;
      steps = s.steps;
      env = s.env;
      preamble = s.preamble;
      filter = s.filter;
      limits = s.limits;
      niceness = s.niceness;
      trustedCode = s.trustedCode;
      options = s.options;
    }

    /** The steps' environment. */
    public Builder env(Map<String, String> env) {
      this.env = env;
      return this;
    }

    /** The lines at the top of the log. */
    public Builder preamble(List<String> preamble) {
      this.preamble = preamble;
      return this;
    }

    /** What masks the output. */
    public Builder filter(OutputFilter filter) {
      this.filter = filter;
      return this;
    }

    /** The time limits. */
    public Builder limits(TimeLimits limits) {
      this.limits = limits;
      return this;
    }

    /** The steps' niceness. */
    public Builder niceness(int niceness) {
      this.niceness = niceness;
      return this;
    }

    /** Whether an owner named with {@code --trust} vouches for the code. */
    public Builder trustedCode(boolean trustedCode) {
      this.trustedCode = trustedCode;
      return this;
    }

    /** The executor options. */
    public Builder options(ExecutorOptions options) {
      this.options = options;
      return this;
    }

    /** The run. */
    public RunSpec build() {
      return new RunSpec(
          mirror, commit, steps, env, preamble, filter, limits, niceness, trustedCode, options);
    }
  }
}
