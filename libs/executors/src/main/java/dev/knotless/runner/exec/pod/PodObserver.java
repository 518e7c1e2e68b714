package dev.knotless.runner.exec.pod;

import java.time.Duration;

/**
 * Hears how run pods start, for a service's metrics: how long a pod took from being made to run,
 * how long its image took to pull, and pods that never ran. Called on the run's thread;
 * implementations must be quick and thread-safe.
 */
public interface PodObserver {

  /** Hears nothing. */
  PodObserver NONE = new PodObserver() {};

  /** A pod made for a run is running, {@code took} after it was made. */
  default void running(Duration took) {}

  /**
   * A pod made for a run is running, and the kubelet's events say its image was pulled in {@code
   * took} ({@link ImagePulls}); not called when the image was already on the node.
   */
  default void pulled(Duration took) {}

  /** A pod made for a run will not run; {@code imagePull} when its image could not be had. */
  default void notRunning(boolean imagePull) {}
}
