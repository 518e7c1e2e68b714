package dev.knotless.runtime.pods;

import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.ExecutorContract;
import java.nio.file.Path;

/** The pod executor keeps the executor contract, its pods run by the test kubelet. */
class PodExecutorContractIT extends ExecutorContract {

  @Override
  protected Executor executor(Path work) {
    return new PodCluster(work, PodCluster.settings());
  }
}
