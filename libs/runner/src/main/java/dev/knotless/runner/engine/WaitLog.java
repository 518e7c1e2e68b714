package dev.knotless.runner.engine;

import dev.knotless.runner.schedule.WaitReason;
import dev.knotless.runner.schedule.WaitingRun;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which waiting runs to log why they wait: each run once as it starts to wait, and again only when
 * the reason changes, so a queue that stays put says nothing more. Not thread-safe: {@link Jobs}
 * calls it under its lock.
 */
final class WaitLog {

  private final Map<String, WaitReason> told = new HashMap<>();

  /** A run whose reason to wait is new. */
  record Change(WaitingRun run, WaitReason reason) {}

  /**
   * The runs to log now, in rank order, given every run still waiting. Runs no longer waiting
   * (started, cancelled) are forgotten.
   */
  List<Change> update(List<WaitingRun> waiting) {
    List<Change> out = new ArrayList<>();
    Set<String> still = new HashSet<>();
    for (WaitingRun w : waiting) {
      String id = w.request().runId();
      still.add(id);
      if (told.put(id, w.reason()) != w.reason()) {
        out.add(new Change(w, w.reason()));
      }
    }
    told.keySet().retainAll(still);
    return out;
  }

  /** Why a run waits, in words for the log. Names no secret: only flags and the queue. */
  static String why(WaitReason reason) {
    return switch (reason) {
      case JOB -> "every job is taken, or claimed by a run ranked before it";
      case TURN -> "another run of its workflow holds the turn on this ref or pull";
      case OWNER_CAP -> "its owner's runs hold as many jobs as --owner-jobs lets one owner";
      case ALLOWANCE -> "its owner is past the allowance, so their runs go one at a time";
      case CLASS_CAP -> "runs other than main's hold the --pull-jobs jobs they may";
    };
  }
}
