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
 */
public record ExecStep(String name, String script, Duration timeout, String skipReason) {

  /** Checks the values: a name without line breaks, a script, a limit that is not negative. */
  public ExecStep {
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

  /** True if the step is to run. */
  public boolean runs() {
    return skipReason == null;
  }
}
