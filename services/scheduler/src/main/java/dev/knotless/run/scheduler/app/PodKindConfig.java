package dev.knotless.run.scheduler.app;

import dev.knotless.runner.exec.ExecutorConfig;
import java.util.HashMap;
import java.util.Map;

/** The scheduler's settings under the pod kind's own names, for the kind to read. Stateless. */
final class PodKindConfig {
  private PodKindConfig() {}

  /** {@code config} as the pod kind reads its settings. */
  static ExecutorConfig of(SchedulerConfig config) {
    Map<String, String> values = new HashMap<>();
    values.put("image", config.runImage());
    config.cpus().stream().filter(v -> v != 0).forEach(v -> values.put("cpus", Double.toString(v)));
    config.memory().stream()
        .filter(v -> v != 0)
        .forEach(v -> values.put("memory", Integer.toString(v)));
    config.ephemeralStorage().stream()
        .filter(v -> v != 0)
        .forEach(v -> values.put("ephemeral-storage", Integer.toString(v)));
    config.runtimeClass().ifPresent(v -> values.put("runtime", v));
    config.trustedRuntimeClass().ifPresent(v -> values.put("trusted-runtime", v));
    values.put("run-as-user", Long.toString(config.runAsUser()));
    values.put("namespace", config.namespace());
    values.put("pull-grace", config.pullGrace().toString());
    values.put("pending-timeout", config.pendingTimeout().toString());
    values.put("watch-resync", config.watchResync().toString());
    config.podOverlayFile().ifPresent(v -> values.put("pod-overlay", v.toString()));
    config.runCacheDir().ifPresent(v -> values.put("cache-dir", v.toString()));
    config.runCacheNode().ifPresent(v -> values.put("cache-on-node", v));
    config.runCacheMax().ifPresent(v -> values.put("cache-max", Integer.toString(v)));
    config.diskFloor().ifPresent(v -> values.put("disk-floor", Integer.toString(v)));
    return ExecutorConfig.of(values, Map.of());
  }
}
