package dev.knotless.runner.exec;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;

/**
 * What every executor is made with, whatever its kind. Immutable.
 *
 * @param runnerDid the runner's account, labelling what an executor makes (containers, pods)
 * @param work {@code --work}: where runs get their private directories
 * @param clock the clock runs are timed by
 * @param env the runner's environment, a few variables of which steps see under shell
 */
public record ExecutorContext(String runnerDid, Path work, Clock clock, Map<String, String> env) {

  /** Checks the values and copies the environment. */
  public ExecutorContext {
    Objects.requireNonNull(runnerDid, "runner DID");
    Objects.requireNonNull(work, "work directory");
    Objects.requireNonNull(clock, "clock");
    env = Map.copyOf(env);
  }
}
