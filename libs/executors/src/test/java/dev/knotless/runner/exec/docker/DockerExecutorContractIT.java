package dev.knotless.runner.exec.docker;

import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.ExecutorContract;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.testing.LocalDocker;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The docker executor keeps the executor contract, its runs in the harness's busybox image under
 * the daemon's default runtime.
 */
class DockerExecutorContractIT extends ExecutorContract {

  /** The executor's settings; a subclass picks another runtime. */
  protected DockerSettings settings() {
    return DockerSettings.defaults().withImage(LocalDocker.BUSYBOX);
  }

  @Override
  protected Executor executor(Path work) {
    LocalDocker.ensure();
    String did = "did:plc:contract" + Long.toHexString(System.nanoTime());
    return new DockerExecutor(settings(), did, work, Clock.systemUTC());
  }

  @Override
  protected RunSpec adapt(RunSpec spec) {
    return spec.withOption(new dev.knotless.runner.exec.ContainerImage(LocalDocker.BUSYBOX));
  }
}
