package dev.knotless.runner.plan;

import dev.knotless.runner.state.WantedRun;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each run asked for by name was asked for with, by run id, so a stop that cancels or drops it
 * can record it in the state's {@code wanted} (with its variables) to run again on the next start.
 * An entry goes once its run has been filed again or recorded. Thread-safe.
 */
public final class AskedLedger {

  /**
   * One asked run.
   *
   * @param repo the repository's state key
   * @param ref the full ref it was asked for at
   * @param wanted the workflow and its variables
   */
  public record Entry(String repo, String ref, WantedRun wanted) {}

  private final Map<String, Entry> byRunId = new ConcurrentHashMap<>();

  /** Remembers an asked run as it is handed to the job pool. */
  public void remember(String runId, Entry entry) {
    byRunId.put(runId, entry);
  }

  /** The entry of a run, if it was asked for by name; it is forgotten. */
  public Optional<Entry> take(String runId) {
    return Optional.ofNullable(byRunId.remove(runId));
  }

  /** How many asked runs are remembered now. */
  public int size() {
    return byRunId.size();
  }
}
