package dev.knotless.runner.exec.docker;

import dev.knotless.testing.LocalDocker;

/**
 * The docker executor keeps the executor contract under gVisor's runsc too, as the runner host runs
 * others' code ({@code --runtime}), its runs in the harness's busybox image.
 */
class DockerSandboxContractIT extends DockerExecutorContractIT {

  @Override
  protected DockerSettings settings() {
    return super.settings().withRuntimes(LocalDocker.SANDBOX_RUNTIME, null);
  }
}
