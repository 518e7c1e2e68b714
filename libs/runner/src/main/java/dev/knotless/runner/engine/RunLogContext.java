package dev.knotless.runner.engine;

import dev.knotless.runner.plan.PlannedRun;
import org.slf4j.MDC;

/**
 * Puts a run's identifiers in the log context of the thread doing its work, so every line logged
 * about the run carries them: {@code run} (the check's record key) and {@code repo} (the
 * repository's label, as a pass's lines name it). A JSON log shows them in its {@code mdc} object.
 */
public final class RunLogContext {
  /** The key of the check's record key. */
  public static final String RUN = "run";

  /** The key of the repository. */
  public static final String REPO = "repo";

  private RunLogContext() {}

  /** {@code work} with {@code run}'s identifiers in the log context, the thread's own after. */
  public static Runnable around(PlannedRun run, Runnable work) {
    return () -> {
      String run0 = MDC.get(RUN);
      String repo0 = MDC.get(REPO);
      MDC.put(RUN, run.rkey());
      MDC.put(REPO, run.label());
      try {
        work.run();
      } finally {
        restore(RUN, run0);
        restore(REPO, repo0);
      }
    };
  }

  private static void restore(String key, String value) {
    if (value == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, value);
    }
  }
}
