package dev.knotless.runner.exec.pod;

import java.time.Duration;

/**
 * Hears how run pods start, for a service's metrics: how long a pod took from being made to run,
 * and pods that never ran. Called on the run's thread; implementations must be quick and
 * thread-safe.
 */
public interface PodObserver {

  /** Hears nothing. */
  PodObserver NONE = new PodObserver() {};

  /** A pod made for a run is running, {@code took} after it was made. */
  default void running(Duration took) {}

  /** A pod made for a run will not run; {@code imagePull} when its image could not be had. */
  default void notRunning(boolean imagePull) {}
}
