package dev.knotless.runner.engine;

import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.ShellExecutor;
import dev.knotless.runner.exec.cache.CacheSettings;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.DiskFloor;
import dev.knotless.runner.exec.docker.DockerExecutor;
import dev.knotless.runner.exec.docker.DockerSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the executor a runner was told to use, for the all-in-one runner and the distributed worker
 * alike. Stateless.
 */
public final class ExecutorChoice {

  private static final Logger LOG = LoggerFactory.getLogger(ExecutorChoice.class);

  private ExecutorChoice() {}

  /**
   * The executor called {@code name}: {@code docker} or {@code shell}.
   *
   * @param docker what the docker executor's containers are made from and may take
   * @param runnerDid the runner's account, labelling what the docker executor makes
   * @param env the runner's environment, a few variables of which steps see under shell
   * @throws IllegalArgumentException for another name
   */
  public static Executor open(
      String name,
      DockerSettings docker,
      String runnerDid,
      Path work,
      Clock clock,
      Map<String, String> env) {
    return open(name, docker, CacheSettings.NONE, runnerDid, work, clock, env);
  }

  /**
   * The executor called {@code name}, the docker executor keeping caches as {@code caches} says.
   *
   * @throws UncheckedIOException when the cache directory cannot be made
   */
  public static Executor open(
      String name,
      DockerSettings docker,
      CacheSettings caches,
      String runnerDid,
      Path work,
      Clock clock,
      Map<String, String> env) {
    switch (name) {
      case "shell" -> {
        LOG.warn(
            "the shell executor runs steps as this runner's own user, beside its credentials:"
                + " watch only repositories whose pushers you trust with this host");
        return new ShellExecutor(work, clock, env);
      }
      case "docker" -> {
        CacheStore store = null;
        if (caches.enabled()) {
          try {
            store = new CacheStore(caches.dir(), caches.maxBytes());
          } catch (IOException e) {
            throw new UncheckedIOException("could not make the cache directory " + caches.dir(), e);
          }
          LOG.info(
              "caches kept under {}, a base up to {} GiB", caches.dir(), caches.maxBytes() >> 30);
        }
        DiskFloor floor =
            store == null
                ? null
                : new DiskFloor(store, caches.floorBytes(), DiskFloor.DEFAULT_INTERVAL);
        DockerExecutor executor = new DockerExecutor(docker, runnerDid, work, clock, store, floor);
        try {
          executor.ping();
          LOG.info("runs go in containers through the docker daemon at {}", docker.dockerHost());
        } catch (IOException e) {
          // Runs end as errors that say so until it answers; the runner still reads and files.
          LOG.error("{}: runs end as errors until it answers", e.getMessage());
        }
        return executor;
      }
      default -> throw new IllegalArgumentException("no executor called " + name);
    }
  }

  /** The runner's variables a step may see: a few under shell, none in a container. */
  public static Map<String, String> hostEnvironment(String name, Map<String, String> env) {
    return name.equals("shell") ? env : Map.of();
  }
}
