package dev.knotless.runner.exec.docker;

import java.util.Map;

/**
 * The labels the runner puts on what it makes in the daemon, so a start and a sweep find what an
 * earlier process of the same runner left, and never touch anything else. Stateless.
 */
final class Labels {

  /** The runner's DID: every container and network of this runner carries it. */
  static final String RUNNER = "dev.knotless.run.runner";

  /** The run's name (its directory's), unique among the runner's runs. */
  static final String RUN = "dev.knotless.run.run";

  private Labels() {}

  static Map<String, String> container(String runnerDid, String runName) {
    return Map.of(RUNNER, runnerDid, RUN, runName);
  }

  static Map<String, String> network(String runnerDid) {
    return Map.of(RUNNER, runnerDid);
  }
}
