package dev.knotless.runner.schedule;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Where a runner made of several replicas admits runs, so that what holds for the whole runner (an
 * owner's {@code --owner-jobs}) holds across them: each admission sees what the other replicas'
 * runs hold, and what it admits is recorded as held before another replica admits anything.
 *
 * <p>Implementations must be thread-safe; {@link #ALONE} is the runner with one replica.
 */
@FunctionalInterface
public interface AdmissionGate {

  /** One replica: nothing is held elsewhere. */
  AdmissionGate ALONE = admit -> admit.apply(Map.of());

  /**
   * Calls {@code admit} exactly once, with the jobs each owner's runs hold in the other replicas
   * now (by owner DID), and records the runs it returns as held, atomically with respect to every
   * other replica's gate.
   *
   * @return what {@code admit} returned
   */
  List<Admission> admit(Function<Map<String, Integer>, List<Admission>> admit);
}
