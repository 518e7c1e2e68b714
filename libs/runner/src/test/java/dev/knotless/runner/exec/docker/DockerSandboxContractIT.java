package dev.knotless.runner.exec.docker;

import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.ExecutorContract;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.testing.LocalDocker;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The docker executor keeps the executor contract under gVisor's runsc too, as the runner host runs
 * others' code ({@code --runtime}), its runs in the harness's busybox image.
 */
class DockerSandboxContractIT extends ExecutorContract {

  @Override
  protected Executor executor(Path work) {
    LocalDocker.ensure();
    String did = "did:plc:sandbox" + Long.toHexString(System.nanoTime());
    return new DockerExecutor(
        DockerSettings.defaults()
            .withImage(LocalDocker.BUSYBOX)
            .withRuntimes(LocalDocker.SANDBOX_RUNTIME, null),
        did,
        work,
        Clock.systemUTC());
  }

  @Override
  protected RunSpec adapt(RunSpec spec) {
    return spec.withImage(LocalDocker.BUSYBOX);
  }
}
