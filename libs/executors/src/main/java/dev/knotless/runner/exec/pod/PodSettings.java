package dev.knotless.runner.exec.pod;

import dev.knotless.runner.exec.RunResources;

/**
 * What every run's pod may take and how it runs, from the command line or the chart's values. The
 * limits are unset by default (0), as under docker; a runner for code it does not trust sets them
 * all. Immutable.
 *
 * @param image the image of a workflow that names none ({@code --image})
 * @param cpus the CPUs a run's container may use ({@code --cpus}), 0 for no limit
 * @param memoryGiB its memory in whole GiB ({@code --memory}), 0 for no limit
 * @param ephemeralGiB the local disk it may fill, checkout and outputs included, in whole GiB, 0
 *     for no limit
 * @param runtime the RuntimeClass of others' code ({@code --runtime}, such as {@code gvisor}), null
 *     for the cluster's default
 * @param trustedRuntime the RuntimeClass of code an owner named with {@code --trust} vouches for
 *     ({@code --trusted-runtime}), null to use {@code runtime} for it too
 * @param runAsUser the user id steps run as, with {@code runAsNonRoot}; 0 for the image's own user
 *     (root in most images, which steps that install packages need)
 * @param overlay what the operator lays over every run pod to fit the cluster ({@code
 *     --pod-overlay}): pull Secrets, node selector, tolerations, priority class, a spec patch
 */
public record PodSettings(
    String image,
    double cpus,
    int memoryGiB,
    int ephemeralGiB,
    String runtime,
    String trustedRuntime,
    long runAsUser,
    PodOverlay overlay) {

  /** The image of a workflow that names none, when {@code --image} is not given. */
  public static final String DEFAULT_IMAGE = RunResources.DEFAULT_IMAGE;

  /** Checks the values; a bad one names its flag. */
  public PodSettings {
    RunResources.check(image, cpus, memoryGiB);
    if (ephemeralGiB < 0) {
      throw new IllegalArgumentException("ephemeral storage " + ephemeralGiB + ": negative");
    }
    if (runAsUser < 0) {
      throw new IllegalArgumentException("run-as user " + runAsUser + ": negative");
    }
    overlay = overlay == null ? PodOverlay.NONE : overlay;
  }

  /**
   * No limits, the cluster's default runtime, the image's user, {@link #DEFAULT_IMAGE}, nothing
   * laid over the pod.
   */
  public static PodSettings defaults() {
    return new PodSettings(DEFAULT_IMAGE, 0, 0, 0, null, null, 0, PodOverlay.NONE);
  }

  /** These settings with {@code image} as the default image. */
  public PodSettings withImage(String image) {
    return new PodSettings(
        image, cpus, memoryGiB, ephemeralGiB, runtime, trustedRuntime, runAsUser, overlay);
  }

  /** These settings with the given limits. */
  public PodSettings withLimits(double cpus, int memoryGiB, int ephemeralGiB) {
    return new PodSettings(
        image, cpus, memoryGiB, ephemeralGiB, runtime, trustedRuntime, runAsUser, overlay);
  }

  /** These settings with the RuntimeClasses of others' code and of trusted code. */
  public PodSettings withRuntimes(String runtime, String trustedRuntime) {
    return new PodSettings(
        image, cpus, memoryGiB, ephemeralGiB, runtime, trustedRuntime, runAsUser, overlay);
  }

  /** These settings with steps run as {@code uid} (0 for the image's user). */
  public PodSettings withRunAsUser(long uid) {
    return new PodSettings(
        image, cpus, memoryGiB, ephemeralGiB, runtime, trustedRuntime, uid, overlay);
  }

  /** These settings with {@code overlay} laid over every run pod. */
  public PodSettings withOverlay(PodOverlay overlay) {
    return new PodSettings(
        image, cpus, memoryGiB, ephemeralGiB, runtime, trustedRuntime, runAsUser, overlay);
  }

  /**
   * The RuntimeClass a run's pod names: {@code trustedRuntime} for code an owner named with {@code
   * --trust} vouches for, when set, else {@code runtime}; null for the cluster's default.
   */
  public String runtimeFor(boolean trustedCode) {
    return RunResources.runtimeFor(trustedCode, runtime, trustedRuntime);
  }
}
