package dev.knotless.runner.pull;

import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.state.PassedRun;
import dev.knotless.runner.workflow.Superseded;
import dev.knotless.runner.workflow.Workflow;
import java.util.List;
import java.util.Optional;

/**
 * When a push to the default branch may take a trusted pull's passing run at the same tree instead
 * of running the workflow again, and when a pull's run is kept for that. Stateless.
 *
 * <p>The tree holds the workflows, so the same tree means the same workflows. A run is kept only if
 * it is a trusted pull's, into the default branch, of a workflow that asks for no secrets (the pull
 * never had them), is not {@code superseded: finish} (a deploy runs for what it does) and left no
 * step out (the push, at a ref the step names, would run it). A push takes it only if it is not a
 * rerun or a run by name, and the earlier check still reads success.
 */
public final class PassReuse {

  private PassReuse() {}

  /**
   * Why a pull's run of {@code w} is not kept for a push, or empty when it is.
   *
   * @param baseRef the full ref the pull is into
   * @param defaultRef the repository's default branch, as a full ref
   */
  public static Optional<String> whyNotKept(
      Workflow w, PullTrust trust, String baseRef, String defaultRef) {
    if (trust != PullTrust.TRUSTED) {
      return Optional.of("the pull is not trusted");
    }
    if (!baseRef.equals(defaultRef)) {
      return Optional.of("the pull is not into the default branch");
    }
    return whyNotReusable(w);
  }

  /**
   * Why a push's run of {@code w} does not look for a pull's pass, or empty when it does.
   *
   * @param rerun whether the run is a rerun or was asked for by name
   */
  public static Optional<String> whyNotTaken(
      Workflow w, String ref, String defaultRef, boolean rerun) {
    if (!ref.equals(defaultRef)) {
      return Optional.of("not a push to the default branch");
    }
    if (rerun) {
      return Optional.of("a rerun or a run asked for by name runs again");
    }
    return whyNotReusable(w);
  }

  private static Optional<String> whyNotReusable(Workflow w) {
    if (!w.secrets().isEmpty()) {
      return Optional.of("the workflow asks for secrets, which a pull's run never had");
    }
    if (w.superseded() == Superseded.FINISH) {
      return Optional.of("the workflow is superseded: finish");
    }
    if (w.leavesOutStepsAt(null)) {
      return Optional.of("a pull's run leaves out a step its on.refs names");
    }
    return Optional.empty();
  }

  /** The newest kept pass of {@code workflow} at {@code tree}, if any. */
  public static Optional<PassedRun> find(List<PassedRun> passed, String tree, String workflow) {
    for (int i = passed.size() - 1; i >= 0; i--) {
      PassedRun r = passed.get(i);
      if (r.tree().equals(tree) && r.workflow().equals(workflow)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }

  /** Why the earlier check, as it reads now, cannot be taken, or empty when it can. */
  public static Optional<String> whyNotTakenNow(Optional<CheckStatus> earlier) {
    if (earlier.isEmpty()) {
      return Optional.of("its check is gone");
    }
    if (earlier.get() != CheckStatus.SUCCESS) {
      return Optional.of("its check is " + earlier.get().wire() + " now");
    }
    return Optional.empty();
  }
}
