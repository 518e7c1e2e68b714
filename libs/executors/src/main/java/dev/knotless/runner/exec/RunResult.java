package dev.knotless.runner.exec;

import java.util.List;
import java.util.Objects;

/**
 * What a run left for its check: each step's result, the outcome, the masked log and the files the
 * steps left in {@code KNOTLESS_RUN_OUTPUTS}. The run's directory is gone by the time the caller
 * has this, so everything is in memory. Immutable.
 *
 * @param steps one result per step, in order
 * @param outcome how the run ended
 * @param log the log's bytes, UTF-8, every line masked
 * @param outputs the regular files found under {@code outputs/}, by path relative to it
 */
public record RunResult(
    List<StepResult> steps, RunOutcome outcome, byte[] log, List<OutputFile> outputs) {

  /** Copies the lists. */
  public RunResult {
    steps = List.copyOf(steps);
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(log, "log");
    outputs = List.copyOf(outputs);
  }

  /** The log as text. */
  public String logText() {
    return new String(log, java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * A file a run left in its outputs directory, for the caller to upload as a blob.
   *
   * @param name its path under {@code outputs/}, with {@code /} between directories
   * @param bytes its content
   */
  public record OutputFile(String name, byte[] bytes) {}
}
