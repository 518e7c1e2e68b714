package dev.knotless.runner.engine;

import dev.knotless.runner.plan.AskedLedger;
import dev.knotless.runner.plan.PlannedRun;
import dev.knotless.runner.schedule.RunEnded;
import dev.knotless.runner.schedule.UsageLedger;
import dev.knotless.runner.state.DroppedRun;
import dev.knotless.runner.state.RepoState;
import dev.knotless.runner.state.StateStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the runner writes to the state file about runs: the step time a run took, and at a stop the
 * runs that must run again at the next start. Stateless; the store serializes its updates.
 */
final class RunRecords {

  private static final Logger LOG = LoggerFactory.getLogger(RunRecords.class);

  private RunRecords() {}

  /** Adds a run's step time to its owner's usage for the day, for allowances. */
  static void usage(StateStore state, RunEnded ended) {
    state.update(
        ended.request().repo(),
        s ->
            s.withUsage(
                ended.day(),
                ended.stepMillis(),
                ended.request().privateRepo(),
                UsageLedger.day(Instant.now())));
  }

  /**
   * What the all-in-one's stop does with runs it drops: each is filed cancelled, and recorded to
   * run again at the next start, as wanted when it was asked for by name.
   */
  static StopDrops keptAtStop(StateStore state, AskedLedger asked) {
    return new StopDrops() {
      @Override
      public boolean fileCancelled() {
        return true;
      }

      @Override
      public void dropped(PlannedRun p) {
        if (p.request().askedByName()) {
          wanted(state, asked, List.of(p));
        } else {
          RunRecords.dropped(state, List.of(p));
        }
      }
    };
  }

  /** Runs asked for by name that a stop cut off or never started: wanted again at the start. */
  static void wanted(StateStore state, AskedLedger asked, List<PlannedRun> runs) {
    for (PlannedRun p : runs) {
      asked
          .take(p.runId())
          .ifPresent(
              e -> {
                state.update(e.repo(), s -> s.withWanted(e.ref(), e.wanted()));
                LOG.info(
                    "{}: {} at {} is wanted again at the next start",
                    p.label(),
                    e.wanted().workflow(),
                    e.ref());
              });
    }
  }

  /**
   * Runs a stop dropped before they started, per repository, ref and commit: at the next start they
   * run again if the ref is still there.
   */
  static void dropped(StateStore state, List<PlannedRun> dropped) {
    Map<String, Map<List<String>, List<String>>> byRepo = new LinkedHashMap<>();
    for (PlannedRun p : dropped) {
      byRepo
          .computeIfAbsent(p.request().repo(), k -> new LinkedHashMap<>())
          .computeIfAbsent(
              List.of(p.request().subject(), p.request().revision()), k -> new ArrayList<>())
          .add(p.request().workflow());
    }
    byRepo.forEach(
        (repo, subjects) ->
            state.update(
                repo,
                s -> {
                  RepoState out = s;
                  for (Map.Entry<List<String>, List<String>> e : subjects.entrySet()) {
                    // A pull's revision is "<head> <base>": its run is dropped at both.
                    String[] at = e.getKey().get(1).split(" ", 2);
                    out =
                        out.withDropped(
                            new DroppedRun(
                                e.getKey().get(0),
                                at[0],
                                at.length > 1 ? at[1] : null,
                                e.getValue()));
                  }
                  return out;
                }));
  }
}
