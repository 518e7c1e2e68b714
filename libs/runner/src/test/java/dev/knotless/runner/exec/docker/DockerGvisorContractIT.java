package dev.knotless.runner.exec.docker;

import dev.knotless.testing.LocalDocker;

/** The docker executor keeps the executor contract with its runs under gVisor's runsc. */
class DockerGvisorContractIT extends DockerExecutorContractIT {

  @Override
  protected DockerSettings settings() {
    return super.settings().withRuntimes(LocalDocker.SANDBOX_RUNTIME, null);
  }
}
