package dev.knotless.runner.engine;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.schedule.RunRequest;

/**
 * A run a pass filed as queued and hands to {@link Jobs}: what the scheduler ranks, the check as
 * filed, and how to prepare the steps once the run has its job.
 *
 * @param label the repository's label, for logs
 * @param request what the scheduler ranks; its {@code runId} is the check's record key
 * @param check the check as filed (queued)
 * @param prepare builds the run's spec as it starts (secrets are read then)
 */
public record PlannedRun(String label, RunRequest request, CheckRecord check, Preparer prepare) {

  /** The check's record key. */
  public String rkey() {
    return request.runId();
  }

  /** Builds a run's spec when the run gets its job. */
  @FunctionalInterface
  public interface Preparer {
    /**
     * The spec, with the lines the log starts with.
     *
     * @throws PrepareException when the run cannot start, e.g. the secrets file is unreadable; the
     *     check is then filed as error with the message
     */
    RunSpec prepare() throws PrepareException;
  }

  /** A run that cannot start, with what to put in its check. */
  public static final class PrepareException extends Exception {
    public PrepareException(String message) {
      super(message);
    }
  }
}
