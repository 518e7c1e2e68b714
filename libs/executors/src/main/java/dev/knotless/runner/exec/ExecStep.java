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
 * @param endLeftovers whether what the step leaves running is ended once it ends: in a workflow
 *     with shared steps, a step given secrets (so nothing holds them for a later step to read) and
 *     a step followed by one given secrets (so nothing it left reads them from that step's
 *     processes); see {@link #forRun}
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
   * The executor's view of a workflow's {@code steps} in a run at {@code ref} granted the secrets
   * {@code secrets}: a step a shared step put in place is given only those it was passed. In a
   * workflow with shared steps, steps see different secrets, so what one step leaves running must
   * not outlive it where that would let it reach secrets it was not given: a step's leftovers are
   * ended when it ends if the step was given any secret (a later step might read them from the
   * leftover's environment) or if any later step is given one (the leftover might read them from
   * that step's processes, {@code /proc/<pid>/environ}). A workflow without shared steps gives
   * every step the same secrets, so there a leftover can learn nothing new, and no step pays for a
   * sweep.
   */
  public static java.util.List<ExecStep> forRun(
      java.util.List<Step> steps, String ref, java.util.Set<String> secrets, boolean sharedSteps) {
    java.util.List<ExecStep> out = new java.util.ArrayList<>(steps.size());
    for (Step step : steps) {
      ExecStep plain = of(step, ref);
      java.util.Set<String> withheld = new java.util.TreeSet<>();
      if (step.sees() != null) {
        for (String name : secrets) {
          if (!step.sees().contains(name)) {
            withheld.add(name);
          }
        }
      }
      out.add(
          new ExecStep(
              plain.name(), plain.script(), plain.timeout(), plain.skipReason(), withheld, false));
    }
    if (!sharedSteps) {
      return java.util.List.copyOf(out);
    }
    boolean laterGiven = false;
    for (int i = out.size() - 1; i >= 0; i--) {
      ExecStep s = out.get(i);
      boolean given = s.runs() && secrets.size() > s.withheld().size();
      if (given || laterGiven) {
        out.set(
            i, new ExecStep(s.name(), s.script(), s.timeout(), s.skipReason(), s.withheld(), true));
      }
      laterGiven |= given;
    }
    return java.util.List.copyOf(out);
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
