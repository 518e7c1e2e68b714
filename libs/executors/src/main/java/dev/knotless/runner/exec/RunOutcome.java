package dev.knotless.runner.exec;

import java.util.List;

/**
 * How a run ended, as a check's status: cancelled if a step was cancelled (or the run was cancelled
 * before its first step), else failure if a step failed, else success; error when the runner itself
 * failed (the checkout could not be made, the log could not be written). Immutable.
 */
public sealed interface RunOutcome {

  /** The status as a check record holds it. */
  String status();

  /** Every step that ran passed (skipped steps count as passed). */
  record Passed() implements RunOutcome {
    @Override
    public String status() {
      return "success";
    }
  }

  /** A step failed or was killed at its time limit. */
  record Failed(String step) implements RunOutcome {
    @Override
    public String status() {
      return "failure";
    }
  }

  /** The run was cancelled, for {@code reason}. */
  record Cancelled(String reason) implements RunOutcome {
    @Override
    public String status() {
      return "cancelled";
    }
  }

  /** The runner failed; {@code message} says how, for the check's log and note. */
  record Errored(String message) implements RunOutcome {
    @Override
    public String status() {
      return "error";
    }
  }

  /** The outcome of a run whose steps all got their turn (none was stopped by a runner fault). */
  static RunOutcome of(List<StepResult> steps, String cancelReason) {
    if (cancelReason != null && steps.stream().anyMatch(s -> s.status() == StepStatus.CANCELLED)) {
      return new Cancelled(cancelReason);
    }
    return steps.stream()
        .filter(s -> s.status() == StepStatus.FAILURE)
        .findFirst()
        .<RunOutcome>map(s -> new Failed(s.name()))
        .orElseGet(Passed::new);
  }
}
