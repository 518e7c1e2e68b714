package dev.knotless.runner.queue;

import java.util.List;

/**
 * One branch's merge queue as the runner landing it keeps it between passes (and in its state, so a
 * restart neither lands a batch twice nor half lands one). Immutable; {@link QueuePlan} makes the
 * next one.
 *
 * @param baseRef the branch, {@code refs/heads/<name>}
 * @param running the batches being built or checked, in landing order: the first lands next, each
 *     later one is built ahead on the one before it (at most {@code --depth})
 * @param pending during a bisection, the half of a failed batch that waits while its sibling (the
 *     first running batch) is checked: if the sibling passes, the culprit is in it; if the sibling
 *     fails, it goes back to the queue unsuspected. Empty when no bisection is under way
 * @param pendingFoundBy the id of the batch whose failure began the bisection, or 0
 * @param lastId the last batch id given out; ids only grow, so a check names a batch once
 */
public record QueueState(
    String baseRef, List<Batch> running, List<Pull> pending, long pendingFoundBy, long lastId) {

  public QueueState {
    running = List.copyOf(running);
    pending = List.copyOf(pending);
  }

  /** An empty queue of {@code baseRef}. */
  public static QueueState empty(String baseRef) {
    return new QueueState(baseRef, List.of(), List.of(), 0, 0);
  }

  /** A queued pull at the head it was queued at. */
  public record Pull(String uri, String head) {}

  /** Where a batch is. */
  public enum Status {
    /** Its tip is being made: each pull's head merged in order onto its base. */
    BUILDING,
    /** Its runs are going, at its tip. */
    CHECKING,
    /** Every run passed; it lands once every batch before it has. */
    PASSED
  }

  /**
   * A batch: pulls stacked in queue order on a base, checked once at the tip.
   *
   * @param id its number on this branch
   * @param pulls the pulls, in the order they are merged
   * @param foundBy during a bisection, the id of the batch whose failure it is part of; else 0
   * @param base the commit it is built on (null while the batch before it is still building)
   * @param tip the commit its pulls make on the base (null while building)
   * @param status where it is
   */
  public record Batch(
      long id, List<Pull> pulls, long foundBy, String base, String tip, Status status) {
    public Batch {
      pulls = List.copyOf(pulls);
    }

    Batch with(String newBase, String newTip, Status newStatus) {
      return new Batch(id, pulls, foundBy, newBase, newTip, newStatus);
    }

    /** Whether it holds the pull. */
    public boolean holds(String uri) {
      return pulls.stream().anyMatch(p -> p.uri().equals(uri));
    }
  }

  /** Whether a pull is in a running batch or waiting in a bisection. */
  public boolean holds(String uri) {
    return running.stream().anyMatch(b -> b.holds(uri))
        || pending.stream().anyMatch(p -> p.uri().equals(uri));
  }
}
