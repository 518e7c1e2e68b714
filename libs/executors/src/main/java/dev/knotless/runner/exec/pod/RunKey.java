package dev.knotless.runner.exec.pod;

import dev.knotless.runner.exec.RunSpec;
import java.util.Objects;

/**
 * What names a run outside the process running it (the queue's check key): an {@link
 * dev.knotless.runner.exec.ExecutorOptions} option the pod executor puts on the run's pod, where a
 * scheduler taking over finds it. Other executors ignore it. Immutable.
 *
 * @param key the check key; never empty
 */
public record RunKey(String key) {

  /** Checks the key. */
  public RunKey {
    Objects.requireNonNull(key, "run key");
    if (key.isEmpty()) {
      throw new IllegalArgumentException("a run key cannot be empty");
    }
  }

  /** The key {@code spec} carries, or empty when it carries none. */
  public static String of(RunSpec spec) {
    return spec.options().find(RunKey.class).map(RunKey::key).orElse("");
  }
}
