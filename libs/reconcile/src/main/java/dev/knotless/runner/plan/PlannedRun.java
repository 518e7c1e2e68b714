package dev.knotless.runner.plan;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.exec.AfterSteps;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.filing.FilingAhead;
import dev.knotless.runner.schedule.RunRequest;
import dev.knotless.runner.state.PassedRun;

/**
 * A run a pass filed as queued and hands to the job pool: what the scheduler ranks, the check as
 * filed, and how to prepare the steps once the run has its job.
 *
 * @param label the repository's label, for logs
 * @param request what the scheduler ranks; its {@code runId} is the check's record key
 * @param check the check as filed (queued)
 * @param prepare builds the run's spec as it starts (secrets are read then)
 * @param order what another process needs to run it (a scheduler's pods), or null for a run only
 *     this process can run (a pull's, whose merge commit is in this process's mirror)
 * @param keep what to keep in the state when the run passes, so a push at the same tree can take
 *     its result; null for a run whose pass is not kept
 * @param ahead the pass's queued check still being filed as the run is handed on, or {@link
 *     FilingAhead#NONE}
 */
public record PlannedRun(
    String label,
    RunRequest request,
    CheckRecord check,
    Preparer prepare,
    RunOrder order,
    PassedRun keep,
    FilingAhead ahead) {

  public PlannedRun {
    ahead = ahead == null ? FilingAhead.NONE : ahead;
  }

  /** A run whose check was filed before it was handed on. */
  public PlannedRun(
      String label,
      RunRequest request,
      CheckRecord check,
      Preparer prepare,
      RunOrder order,
      PassedRun keep) {
    this(label, request, check, prepare, order, keep, FilingAhead.NONE);
  }

  /** A run whose pass is not kept. */
  public PlannedRun(
      String label, RunRequest request, CheckRecord check, Preparer prepare, RunOrder order) {
    this(label, request, check, prepare, order, null);
  }

  /** A run only this process can run. */
  public PlannedRun(String label, RunRequest request, CheckRecord check, Preparer prepare) {
    this(label, request, check, prepare, null, null);
  }

  /** This run, its pass kept as {@code passed} if it passes. */
  public PlannedRun keptAs(PassedRun passed) {
    return new PlannedRun(label, request, check, prepare, order, passed, ahead);
  }

  /** This run, handed on while {@code filing} is still on its way. */
  public PlannedRun behind(FilingAhead filing) {
    return new PlannedRun(label, request, check, prepare, order, keep, filing);
  }

  /**
   * The check's record key: the run id up to any {@code #}. Two runs may file the same check (a
   * rerun, or a run asked for by name, at the same commit), so run ids add {@code #<n>} to keep
   * them apart; a record key never holds a {@code #}.
   */
  public String rkey() {
    return rkeyOf(request.runId());
  }

  /** The check's record key of run id {@code runId}: the id up to any {@code #}. */
  public static String rkeyOf(String runId) {
    int hash = runId.indexOf('#');
    return hash < 0 ? runId : runId.substring(0, hash);
  }

  /** The run's id in the scheduler and the job pool: unique among runs. */
  public String runId() {
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

    /**
     * What the executor calls with the checkout once the steps end, before it is removed: nothing
     * by default; a write-back commits what the run changed.
     */
    default AfterSteps afterSteps() {
      return AfterSteps.NONE;
    }

    /**
     * Asked once the run has its job, before its check is filed as running: why it is not to run at
     * all, since another runner has started or passed the same check meanwhile (a merge-queue
     * pre-flight), or empty to run it. Empty by default.
     */
    default java.util.Optional<String> elsewhere() {
      return java.util.Optional.empty();
    }

    /**
     * What a run planned again when it got its job (from a queue row's order) keeps in the state if
     * it passes, decided then as the pass decides it; null by default, and before {@link #prepare}.
     */
    default PassedRun kept() {
      return null;
    }
  }

  /**
   * What to keep in the state when the run passes: the pass's {@link #keep}, or what its preparer
   * decided when it planned the run again ({@link Preparer#kept}); null for none.
   */
  public PassedRun keptPass() {
    return keep != null ? keep : prepare.kept();
  }

  /** A run that cannot start, with what to put in its check. */
  public static final class PrepareException extends Exception {
    public PrepareException(String message) {
      super(message);
    }
  }
}
