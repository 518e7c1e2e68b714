package dev.knotless.runner.engine;

import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.plan.PlannedRun;

/**
 * Where {@link Jobs} tells what becomes of each run it holds. The all-in-one runner files the
 * checks itself ({@link FiledChecks}); the distributed worker publishes run events that the
 * check-writer files. Calls for one run come in order: {@link #started}, the listener's calls, then
 * {@link #ended}; or only {@link #cancelledUnstarted}. Implementations must be thread-safe: runs go
 * side by side.
 */
public interface RunReports {

  /**
   * The run has its job and is about to start: its check is to show it running.
   *
   * @param running the check as it is to read now
   * @throws XrpcException when that cannot be told; the run then ends as error without starting
   */
  void started(PlannedRun run, CheckRecord running) throws XrpcException;

  /** What follows the run's steps as they go; nothing by default. */
  default RunListener listener(PlannedRun run) {
    return RunListener.NONE;
  }

  /**
   * The run ended. Called after its job is free again, so it may take its time.
   *
   * @param running the check as filed at {@link #started}
   * @param result what the executor returned, or null when the run could not start
   * @param fault why it could not start, when {@code result} is null
   */
  void ended(PlannedRun run, CheckRecord running, RunResult result, String fault);

  /** A waiting run was cancelled before it started, for {@code why}. */
  void cancelledUnstarted(PlannedRun run, String why);

  /**
   * The run had its job but is not run, because another runner started or passed the same check
   * meanwhile ({@link PlannedRun.Preparer#elsewhere}): its check is to go. Called after its job is
   * free again, in place of {@link #ended}. By default it is filed as cancelled, for {@code why}.
   */
  default void withdrawn(PlannedRun run, String why) {
    cancelledUnstarted(run, why);
  }
}
