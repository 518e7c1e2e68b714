package dev.knotless.runner.cli;

import dev.knotless.runner.exec.cache.CacheSettings;
import dev.knotless.runner.exec.docker.DockerSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The flags that choose the executor and what a run's container may take, gathered while the
 * command line is read and checked at its end. Not thread-safe: one per parse.
 */
final class ExecutorFlags {

  /** The flags that mean something only to the docker executor. */
  static final List<String> DOCKER_ONLY =
      List.of(
          "--image",
          "--cpus",
          "--memory",
          "--pids",
          "--network",
          "--runtime",
          "--trusted-runtime",
          "--resolv",
          "--cache-dir",
          "--cache-max",
          "--disk-floor");

  /** Every flag these take: the executor, the docker-only ones, and {@code --trust}. */
  static final List<String> FLAGS =
      java.util.stream.Stream.concat(
              java.util.stream.Stream.of("--executor", "--trust"), DOCKER_ONLY.stream())
          .toList();

  private String executor = "docker";
  private DockerSettings docker;
  private CacheSettings caches = CacheSettings.NONE;
  private final Set<String> trust = new LinkedHashSet<>();
  private final List<String> dockerFlagsGiven = new ArrayList<>();

  ExecutorFlags(Map<String, String> env) {
    String host = env.get("DOCKER_HOST");
    docker =
        DockerSettings.defaults()
            .withDockerHost(host == null || host.isBlank() ? DockerSettings.DEFAULT_HOST : host);
  }

  /** Takes {@code flag}, one of {@link #FLAGS}, with its {@code value}. */
  void take(String flag, String value) throws RunnerOptions.UsageException {
    switch (flag) {
      case "--executor" -> {
        if (!value.equals("docker") && !value.equals("shell")) {
          throw new RunnerOptions.UsageException(
              "--executor " + value + ": expected docker or shell");
        }
        executor = value;
      }
      case "--image" -> docker = withImage(docker, nonBlank(flag, value));
      case "--cpus" -> docker = docker.withLimits(cpus(value), docker.memoryGiB(), docker.pids());
      case "--memory" ->
          docker =
              docker.withLimits(
                  docker.cpus(), wholeAbove0(flag, value, "GiB, such as 4"), docker.pids());
      case "--pids" ->
          docker =
              docker.withLimits(
                  docker.cpus(),
                  docker.memoryGiB(),
                  wholeAbove0(flag, value, "processes, such as 512"));
      case "--network" -> docker = docker.withNetwork(nonBlank(flag, value));
      case "--runtime" ->
          docker = docker.withRuntimes(nonBlank(flag, value), docker.trustedRuntime());
      case "--trusted-runtime" ->
          docker = docker.withRuntimes(docker.runtime(), nonBlank(flag, value));
      case "--resolv" -> {
        Path file = Path.of(value);
        if (!Files.isRegularFile(file)) {
          throw new RunnerOptions.UsageException(
              "--resolv " + value + ": no such file on this host");
        }
        docker = docker.withResolv(file.toAbsolutePath());
      }
      case "--cache-dir" ->
          caches =
              new CacheSettings(
                  Path.of(nonBlank(flag, value)).toAbsolutePath(),
                  caches.maxBytes(),
                  caches.floorBytes());
      case "--cache-max" ->
          caches =
              new CacheSettings(
                  caches.dir(),
                  (long) wholeAbove0(flag, value, "GiB, such as 16") << 30,
                  caches.floorBytes());
      case "--disk-floor" -> {
        int gib;
        try {
          gib = Integer.parseInt(value);
        } catch (NumberFormatException e) {
          gib = -1;
        }
        if (gib < 0) {
          throw new RunnerOptions.UsageException(
              flag + " " + value + ": expected whole GiB, such as 20, or 0 for no floor");
        }
        caches = new CacheSettings(caches.dir(), caches.maxBytes(), (long) gib << 30);
      }
      case "--trust" -> {
        if (!value.startsWith("did:")) {
          throw new RunnerOptions.UsageException("--trust " + value + ": expected a DID");
        }
        trust.add(value);
      }
      default -> throw new IllegalArgumentException("not an executor flag: " + flag);
    }
    if (DOCKER_ONLY.contains(flag)) {
      dockerFlagsGiven.add(flag);
    }
  }

  /** The executor's name, checked against the flags given. */
  String executor() throws RunnerOptions.UsageException {
    if (executor.equals("shell") && !dockerFlagsGiven.isEmpty()) {
      throw new RunnerOptions.UsageException(
          String.join(", ", dockerFlagsGiven)
              + ": only the docker executor runs steps in containers; drop --executor shell");
    }
    return executor;
  }

  DockerSettings docker() {
    return docker;
  }

  CacheSettings caches() {
    return caches;
  }

  Set<String> trust() {
    return Set.copyOf(trust);
  }

  /** {@code docker} with {@code --image}, refused naming it when docker would not take it. */
  private static DockerSettings withImage(DockerSettings docker, String image)
      throws RunnerOptions.UsageException {
    try {
      return docker.withImage(image);
    } catch (IllegalArgumentException e) {
      throw new RunnerOptions.UsageException(e.getMessage());
    }
  }

  private static String nonBlank(String flag, String value) throws RunnerOptions.UsageException {
    if (value.isBlank()) {
      throw new RunnerOptions.UsageException(flag + ": empty");
    }
    return value;
  }

  private static double cpus(String value) throws RunnerOptions.UsageException {
    try {
      double n = Double.parseDouble(value);
      if (n > 0 && n <= 4096 && !Double.isNaN(n)) {
        return n;
      }
    } catch (NumberFormatException e) {
      // Said below.
    }
    throw new RunnerOptions.UsageException(
        "--cpus " + value + ": expected a number of CPUs above 0, such as 2 or 1.5");
  }

  private static int wholeAbove0(String flag, String value, String what)
      throws RunnerOptions.UsageException {
    try {
      int n = Integer.parseInt(value);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // Said below.
    }
    throw new RunnerOptions.UsageException(flag + " " + value + ": expected whole " + what);
  }
}
