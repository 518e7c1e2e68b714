package dev.knotless.runner.schedule;

import java.util.Map;
import java.util.Set;

/**
 * What the runner's other replicas hold, as one replica's admission sees it ({@link
 * AdmissionGate}): the jobs each owner's runs hold there, and the workflows on a subject whose turn
 * goes to a run filed there before one waiting here. A {@code superseded: finish} run waits while
 * its workflow's turn is held elsewhere, so deploys filed on different replicas (a repository moves
 * between them as they start and stop) still go out in the order they were filed.
 *
 * @param ownerJobs jobs held elsewhere, by owner DID
 * @param turns the workflows on a subject whose turn a run filed elsewhere, and not yet ended,
 *     holds ahead of this replica's waiting runs
 */
public record HeldElsewhere(Map<String, Integer> ownerJobs, Set<RunRequest.WorkKey> turns) {
  /** Nothing held elsewhere: the runner has one replica, or the others hold nothing. */
  public static final HeldElsewhere NONE = new HeldElsewhere(Map.of(), Set.of());

  public HeldElsewhere {
    ownerJobs = Map.copyOf(ownerJobs);
    turns = Set.copyOf(turns);
  }

  /** Only jobs held elsewhere, by owner DID. */
  public static HeldElsewhere jobs(Map<String, Integer> ownerJobs) {
    return new HeldElsewhere(ownerJobs, Set.of());
  }
}
