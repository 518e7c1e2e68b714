package dev.knotless.runner.queue;

import dev.knotless.runner.check.CheckStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether a queued pull may go into a merge-queue batch: each of its pre-flights (the workflows
 * that say {@code queue: first}) must have passed at its head. A pre-flight with no check there, or
 * a cancelled one, is run by this runner on the pull itself, as a pull's run, when it runs that
 * workflow; one that another runner the repository names has started or passed is not. A failed
 * pre-flight keeps the pull out of batches until its head moves or its pre-flight is run again and
 * passes. Pure; stateless and thread-safe.
 */
public final class PreFlights {

  private PreFlights() {}

  /** What the queue does with the pull. */
  public sealed interface Verdict permits Ready, Waiting, Failed {}

  /** Every pre-flight passed (or there are none): the pull may go into a batch. */
  public record Ready() implements Verdict {}

  /**
   * Not yet: some pre-flights are queued or running, or have no check.
   *
   * @param toRun the pre-flights this runner runs on the pull now, by name, in the order given
   */
  public record Waiting(List<String> toRun) implements Verdict {
    public Waiting {
      toRun = List.copyOf(toRun);
    }
  }

  /**
   * A pre-flight failed at the pull's head: the pull stays out of batches.
   *
   * @param workflow the first that failed
   * @param status how its newest check ended
   */
  public record Failed(String workflow, CheckStatus status) implements Verdict {}

  /**
   * Judges a pull's pre-flights.
   *
   * @param preflights the pre-flights that run on a pull into its base, by name
   * @param runsHere of those, the ones this runner runs
   * @param newest the newest check of each workflow at the pull's head among the runners whose
   *     checks count (this one and those the repository names), by workflow name
   */
  public static Verdict judge(
      Collection<String> preflights, Set<String> runsHere, Map<String, CheckStatus> newest) {
    List<String> toRun = new ArrayList<>();
    boolean waiting = false;
    for (String w : preflights) {
      CheckStatus s = newest.get(w);
      if (s == null || s == CheckStatus.CANCELLED) {
        waiting = true;
        if (runsHere.contains(w)) {
          toRun.add(w);
        }
      } else if (s == CheckStatus.QUEUED || s == CheckStatus.RUNNING) {
        waiting = true;
      } else if (s != CheckStatus.SUCCESS) {
        return new Failed(w, s);
      }
    }
    return waiting ? new Waiting(toRun) : new Ready();
  }
}
