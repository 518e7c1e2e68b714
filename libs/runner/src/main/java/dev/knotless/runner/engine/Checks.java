package dev.knotless.runner.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.StepStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** How an executed run becomes a check record. Stateless. */
public final class Checks {

  /** How a refused write-back's failure begins (pass.WriteBack's prefix), in its note and log. */
  static final String NOT_WRITTEN_BACK = "not written back: ";

  private Checks() {}

  /** The check filed again as running, from the moment it has its job. */
  public static CheckRecord started(CheckRecord c, Instant at) {
    return rebuild(c, CheckStatus.RUNNING, at, null, c.log(), c.outputs());
  }

  static CheckRecord withLog(CheckRecord c, BlobRef log) {
    return rebuild(c, c.status(), c.startedAt(), c.endedAt(), log, c.outputs());
  }

  static CheckRecord withOutputs(CheckRecord c, List<JsonNode> outputs) {
    return rebuild(c, c.status(), c.startedAt(), c.endedAt(), c.log(), outputs);
  }

  /** The same check with what a run's progress changes; what it checked stays. */
  private static CheckRecord rebuild(
      CheckRecord c,
      CheckStatus status,
      Instant startedAt,
      Instant endedAt,
      BlobRef log,
      List<JsonNode> outputs) {
    return new CheckRecord(
        c.repo(),
        c.ref(),
        c.commit(),
        c.baseCommit(),
        c.pull(),
        c.workflow(),
        status,
        c.createdAt(),
        startedAt,
        endedAt,
        c.steps(),
        log,
        outputs,
        c.note());
  }

  /** The check's status for how the run ended. */
  public static CheckStatus status(RunResult r) {
    return CheckStatus.fromWire(r.outcome().status());
  }

  /** Why, for the check's note: the failed step, the cancel's reason, the runner's fault. */
  public static String note(RunResult r) {
    RunOutcome o = r.outcome();
    if (o instanceof RunOutcome.Failed f) {
      // A refused write-back fails the run after its steps passed, and says why itself.
      return f.step().startsWith(NOT_WRITTEN_BACK) ? f.step() : "step " + f.step() + " failed";
    }
    if (o instanceof RunOutcome.Cancelled c) {
      return c.reason();
    }
    if (o instanceof RunOutcome.Errored e) {
      return e.message();
    }
    return null;
  }

  /** Each step's result as the check records it. */
  static List<StepResult> steps(RunResult r) {
    List<StepResult> out = new ArrayList<>();
    for (dev.knotless.runner.exec.StepResult s : r.steps()) {
      boolean ran = s.status() != StepStatus.SKIPPED;
      out.add(
          new StepResult(
              s.name(),
              StepResult.Status.fromWire(s.status().wire()),
              ran ? s.started() : null,
              ran ? s.ended() : null,
              s.note().isEmpty() ? null : s.note()));
    }
    return out;
  }

  /** How long the steps took together, which is what allowances count. */
  static long stepMillis(RunResult r) {
    long total = 0;
    for (dev.knotless.runner.exec.StepResult s : r.steps()) {
      if (s.status() != StepStatus.SKIPPED) {
        total += Duration.between(s.started(), s.ended()).toMillis();
      }
    }
    return total;
  }
}
