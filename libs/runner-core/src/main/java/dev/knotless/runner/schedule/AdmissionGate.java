package dev.knotless.runner.schedule;

import java.util.List;
import java.util.function.Function;

/**
 * Where a runner made of several replicas admits runs, so that what holds for the whole runner (an
 * owner's {@code --owner-jobs}, a deploy's turn) holds across them: each admission sees what the
 * other replicas' runs hold, and what it admits is recorded as held before another replica admits
 * anything.
 *
 * <p>Implementations must be thread-safe; {@link #ALONE} is the runner with one replica.
 */
@FunctionalInterface
public interface AdmissionGate {

  /** One replica: nothing is held elsewhere. */
  AdmissionGate ALONE = admit -> admit.apply(HeldElsewhere.NONE);

  /**
   * Calls {@code admit} exactly once, with what the other replicas hold now, and records the runs
   * it returns as held, atomically with respect to every other replica's gate.
   *
   * @return what {@code admit} returned
   */
  List<Admission> admit(Function<HeldElsewhere, List<Admission>> admit);
}
