package dev.knotless.runner.exec.docker;

import dev.knotless.runner.exec.RunResources;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What every run's container may take and where it runs, from the command line. All limits but the
 * image are unset by default (0 or null), leaving a run as much of the host as it can get; a runner
 * for code it does not trust sets them all. Immutable.
 *
 * @param dockerHost the Engine API's address, such as {@code unix:///var/run/docker.sock}
 * @param image the image of a workflow that names none ({@code --image})
 * @param cpus how many CPUs a run's container may use ({@code --cpus}), 0 for no limit
 * @param memoryGiB the container's memory in whole GiB, with no swap past it ({@code --memory}), 0
 *     for no limit
 * @param pids how many processes the container may hold ({@code --pids}), 0 for no limit
 * @param network the network runs join ({@code --network}), made if missing as a bridge with
 *     traffic between its containers off; null for docker's default bridge
 * @param runtime the container runtime of others' code ({@code --runtime}, such as {@code runsc}),
 *     null for the daemon's default
 * @param trustedRuntime the runtime of code an owner named with {@code --trust} vouches for ({@code
 *     --trusted-runtime}), null to use {@code runtime} for it too
 * @param resolv a file on the docker host mounted read-only at {@code /etc/resolv.conf} ({@code
 *     --resolv}), or null
 */
public record DockerSettings(
    String dockerHost,
    String image,
    double cpus,
    int memoryGiB,
    int pids,
    String network,
    String runtime,
    String trustedRuntime,
    Path resolv) {

  /** The Engine API's address when neither the command line nor DOCKER_HOST names one. */
  public static final String DEFAULT_HOST = "unix:///var/run/docker.sock";

  /** The image of a workflow that names none, when {@code --image} is not given. */
  public static final String DEFAULT_IMAGE = RunResources.DEFAULT_IMAGE;

  /**
   * The CPU weight of every run but a push to the default branch and the batch that lands next:
   * about a tenth of the default 1024's pull on a busy CPU, none on an idle one.
   */
  public static final int BACKGROUND_CPU_SHARES = 256;

  /** Checks the values; a bad one names its flag. */
  public DockerSettings {
    Objects.requireNonNull(dockerHost, "docker host");
    RunResources.check(image, cpus, memoryGiB);
    if (pids < 0) {
      throw new IllegalArgumentException("--pids " + pids + ": expected a whole number above 0");
    }
  }

  /** Docker's defaults: no limits, the default network and runtime, {@link #DEFAULT_IMAGE}. */
  public static DockerSettings defaults() {
    return new DockerSettings(DEFAULT_HOST, DEFAULT_IMAGE, 0, 0, 0, null, null, null, null);
  }

  /** These settings with {@code image} as the default image. */
  public DockerSettings withImage(String image) {
    return new DockerSettings(
        dockerHost, image, cpus, memoryGiB, pids, network, runtime, trustedRuntime, resolv);
  }

  /** These settings with the given limits. */
  public DockerSettings withLimits(double cpus, int memoryGiB, int pids) {
    return new DockerSettings(
        dockerHost, image, cpus, memoryGiB, pids, network, runtime, trustedRuntime, resolv);
  }

  /** These settings with runs joining {@code network} (null for docker's default bridge). */
  public DockerSettings withNetwork(String network) {
    return new DockerSettings(
        dockerHost, image, cpus, memoryGiB, pids, network, runtime, trustedRuntime, resolv);
  }

  /** These settings with the runtimes of others' code and of trusted code. */
  public DockerSettings withRuntimes(String runtime, String trustedRuntime) {
    return new DockerSettings(
        dockerHost, image, cpus, memoryGiB, pids, network, runtime, trustedRuntime, resolv);
  }

  /** These settings with {@code resolv} as runs' {@code /etc/resolv.conf}. */
  public DockerSettings withResolv(Path resolv) {
    return new DockerSettings(
        dockerHost, image, cpus, memoryGiB, pids, network, runtime, trustedRuntime, resolv);
  }

  /** These settings talking to the daemon at {@code dockerHost}. */
  public DockerSettings withDockerHost(String dockerHost) {
    return new DockerSettings(
        dockerHost, image, cpus, memoryGiB, pids, network, runtime, trustedRuntime, resolv);
  }

  /**
   * The runtime a run's container starts with: {@code trustedRuntime} for code an owner named with
   * {@code --trust} vouches for, when set, else {@code runtime}; null for the daemon's default.
   */
  public String runtimeFor(boolean trustedCode) {
    return RunResources.runtimeFor(trustedCode, runtime, trustedRuntime);
  }

  /** The container's memory limit in bytes, or 0. */
  public long memoryBytes() {
    return (long) memoryGiB << 30;
  }
}
