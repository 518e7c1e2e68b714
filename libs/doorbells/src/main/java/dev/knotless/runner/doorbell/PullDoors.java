package dev.knotless.runner.doorbell;

/**
 * Which of the pull side's records ring doors: the one place both shapes turn them on, so the
 * all-in-one (from {@code --pulls} and {@code --queue}) and the ingester (from its settings) ring
 * for the same records.
 *
 * <ul>
 *   <li>With {@code pulls}: a {@code dev.knotless.pull} or {@code dev.knotless.state} record in
 *       anyone's account, keyed {@code <repo key>.<tid>}, rings that watched repository's door, so
 *       a new, closed, reopened or retargeted pull is read at once. A ref moving in a pull's head
 *       repository rings its base's door too, once the wiring tells the matcher which heads to
 *       follow ({@link DoorMatcher#followPullHeads}).
 *   <li>With {@code queue} (which needs {@code pulls}): a {@code dev.knotless.queue} record keyed
 *       the same way.
 * </ul>
 *
 * <p>Anyone may write such a record, and a frame is unsigned anyway: a ring only makes a pass read,
 * and the pass counts only the states and queue records of those it trusts.
 *
 * <p>Immutable and thread-safe.
 *
 * @param pulls whether pulls are checked
 * @param queue whether the merge queue is worked
 */
public record PullDoors(boolean pulls, boolean queue) {

  /** Neither: only refs, reruns and repository records ring. */
  public static final PullDoors NONE = new PullDoors(false, false);

  /**
   * @throws IllegalArgumentException when {@code queue} is on without {@code pulls}: the queue
   *     holds open pulls, which only a runner that reads pulls knows
   */
  public PullDoors {
    if (queue && !pulls) {
      throw new IllegalArgumentException(
          "the merge queue's doorbell needs pulls on: the queue holds open pulls");
    }
  }

  /** Adds this choice's rules to {@code matcher} and returns it. */
  public DoorMatcher addTo(DoorMatcher matcher) {
    if (pulls) {
      matcher.addRule(DoorMatcher.PULL, DoorMatcher::byKeyPrefixOfAnyone);
      matcher.addRule(DoorMatcher.STATE, DoorMatcher::byKeyPrefixOfAnyone);
    }
    if (queue) {
      matcher.addRule(DoorMatcher.QUEUE, DoorMatcher::byKeyPrefixOfAnyone);
    }
    return matcher;
  }
}
