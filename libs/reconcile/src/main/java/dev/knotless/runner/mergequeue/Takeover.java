package dev.knotless.runner.mergequeue;

import dev.knotless.runner.filing.CheckFiler;

/**
 * What a scheduler that takes the run queue over (a standby come to lead) does with each run the
 * last leader held, as a start does with the checks a stopped runner left (spec, "A start"): a run
 * whose pod still lives is followed in it; one that never started runs, as nothing of it was seen;
 * one that had started but whose pod is gone ends as an error saying so, since running its steps
 * again would repeat what they did (a deploy, a push) under a check that said it was running once
 * already. {@code knotless rerun} runs it again. Stateless.
 */
public final class Takeover {

  /** What becomes of one run taken over. */
  public sealed interface Action {
    /** Its pod lives: follow it there, starting no step twice. */
    record Adopt() implements Action {}

    /** It never started: run it. */
    record Run() implements Action {}

    /** It started and its pod is gone: end its check as an error with {@code note}. */
    record EndAsError(String note) implements Action {}
  }

  private Takeover() {}

  /**
   * @param started whether the last leader marked the run started (its check said running)
   * @param podLives whether a pod of the run's, made by the last leader, is still there
   */
  public static Action of(boolean started, boolean podLives) {
    if (podLives) {
      return new Action.Adopt();
    }
    return started ? new Action.EndAsError(CheckFiler.STALE_NOTE) : new Action.Run();
  }
}
