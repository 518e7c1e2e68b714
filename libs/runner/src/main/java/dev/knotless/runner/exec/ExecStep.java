package dev.knotless.runner.exec;

import dev.knotless.runner.workflow.Step;
import java.time.Duration;
import java.util.Objects;

/**
 * One step as the executor sees it: a name, a script for {@code sh -ec}, its own time limit, and,
 * for a step that is not to run, the reason written under its {@code ==>} line.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name the step's name, written in its {@code ==> <name>} log line
 * @param script the script; passed to {@code sh -ec} as an argument, so it must never hold a secret
 *     value (secrets reach a step only through its environment)
 * @param timeout the step's own limit, or {@link Duration#ZERO} for none (the run's limits apply)
 * @param skipReason null for a step that runs; otherwise the line(s) the log shows under the step's
 *     header, such as why its {@code on.refs} did not match
 * @param withheld names of the run's variables this step is not given: the secrets a shared step
 *     was not passed
 * @param endLeftovers whether what the step leaves running is ended once it ends (a step given
 *     secrets in a workflow with shared steps), so nothing holds them for a later step to read
 */
public record ExecStep(
    String name,
    String script,
    Duration timeout,
    String skipReason,
    java.util.Set<String> withheld,
    boolean endLeftovers) {

  /** A step given every variable of the run, whose leftovers stay for the next step. */
  public ExecStep(String name, String script, Duration timeout, String skipReason) {
    this(name, script, timeout, skipReason, java.util.Set.of(), false);
  }

  /** Checks the values: a name without line breaks, a script, a limit that is not negative. */
  public ExecStep {
    withheld = java.util.Set.copyOf(withheld);
    Objects.requireNonNull(name, "step name");
    Objects.requireNonNull(script, "script of step " + name);
    Objects.requireNonNull(timeout, "timeout of step " + name);
    if (name.isBlank() || name.indexOf('\n') >= 0 || name.indexOf('\r') >= 0) {
      throw new IllegalArgumentException(
          "step name must be one non-blank line, got " + Quoting.quote(name));
    }
    if (timeout.isNegative()) {
      throw new IllegalArgumentException(
          "timeout of step " + Quoting.quote(name) + " is negative: " + timeout);
    }
  }

  /** A step that runs {@code script}, limited to {@code timeout} ({@link Duration#ZERO}: none). */
  public static ExecStep run(String name, String script, Duration timeout) {
    return new ExecStep(name, script, timeout, null);
  }

  /** A step that does not run; {@code reason} goes under its header in the log. */
  public static ExecStep skipped(String name, String reason) {
    Objects.requireNonNull(reason, "skip reason of step " + name);
    return new ExecStep(name, "", Duration.ZERO, reason);
  }

  /**
   * The executor's view of a workflow step in a run at {@code ref} (null for a pull's or a
   * merge-queue batch's run, which matches no ref): skipped with the step's own note when its
   * {@code on.refs} does not match.
   */
  public static ExecStep of(Step step, String ref) {
    if (!step.runsAt(ref)) {
      return skipped(step.name(), step.leftOutNote(ref));
    }
    return run(step.name(), step.run(), Duration.ofSeconds(step.timeoutSeconds()));
  }

  /**
   * As {@link #of(Step, String)}, in a run granted the secrets {@code secrets}: a step a shared
   * step put in place is given only those it was passed, and in a workflow with shared steps, what
   * a step given any secret leaves running is ended when it ends.
   */
  public static ExecStep of(
      Step step, String ref, java.util.Set<String> secrets, boolean sharedSteps) {
    ExecStep plain = of(step, ref);
    java.util.Set<String> withheld = new java.util.TreeSet<>();
    if (step.sees() != null) {
      for (String name : secrets) {
        if (!step.sees().contains(name)) {
          withheld.add(name);
        }
      }
    }
    boolean given = secrets.size() > withheld.size();
    return new ExecStep(
        plain.name(),
        plain.script(),
        plain.timeout(),
        plain.skipReason(),
        withheld,
        sharedSteps && given);
  }

  /** The environment this step is given of the run's {@code env}. */
  public java.util.Map<String, String> environment(java.util.Map<String, String> env) {
    if (withheld.isEmpty()) {
      return env;
    }
    java.util.Map<String, String> out = new java.util.LinkedHashMap<>(env);
    withheld.forEach(out::remove);
    return out;
  }

  /** True if the step is to run. */
  public boolean runs() {
    return skipReason == null;
  }
}
