package dev.knotless.runner.exec;

import java.nio.file.Path;

/** The shell executor keeps the executor contract. */
class ShellExecutorContractIT extends ExecutorContract {

  @Override
  protected Executor executor(Path work) {
    return new ShellExecutor(work);
  }

  @Override
  protected boolean pidOneIsTheRuns() {
    return false;
  }
}
