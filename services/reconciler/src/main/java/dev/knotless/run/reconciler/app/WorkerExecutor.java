package dev.knotless.run.reconciler.app;

import dev.knotless.runner.exec.ChosenExecutor;
import dev.knotless.runner.exec.ExecutorConfig;
import dev.knotless.runner.exec.ExecutorKinds;
import dev.knotless.runner.exec.docker.DockerKind;
import java.util.HashMap;
import java.util.Map;

/**
 * The executor the worker's config names, chosen from the registry with its keys mapped onto the
 * kind's own flag names, so the kind builds its settings as the command line's do.
 */
final class WorkerExecutor {

  private WorkerExecutor() {}

  /** The runner's variables a step may see under the worker's executor (a few under shell). */
  static Map<String, String> hostEnvironment(
      ReconcilerConfig.Worker config, Map<String, String> env) {
    return ExecutorKinds.installed()
        .find(config.executor())
        .map(k -> k.hostEnvironment(env))
        .orElse(Map.of());
  }

  /** The worker's executor, its settings read from the worker's config. */
  static ChosenExecutor<?> choose(ReconcilerConfig.Worker config, Map<String, String> env) {
    Map<String, String> values = new HashMap<>();
    values.put(DockerKind.DOCKER_HOST, config.dockerHost());
    config.image().ifPresent(v -> values.put("image", v));
    config.cpus().stream().filter(v -> v != 0).forEach(v -> values.put("cpus", Double.toString(v)));
    config.memory().stream()
        .filter(v -> v != 0)
        .forEach(v -> values.put("memory", Integer.toString(v)));
    config.pids().stream()
        .filter(v -> v != 0)
        .forEach(v -> values.put("pids", Integer.toString(v)));
    config.network().ifPresent(v -> values.put("network", v));
    config.runtime().ifPresent(v -> values.put("runtime", v));
    return ExecutorKinds.installed().choose(config.executor(), ExecutorConfig.of(values, env));
  }
}
