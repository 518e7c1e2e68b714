package dev.knotless.bench;

import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunListener.StepStarted;
import java.nio.charset.StandardCharsets;

/**
 * When one run's first step started and first spoke, by {@link System#nanoTime}, from when the
 * listener was made (just before the run is handed to its executor); and what it said first.
 */
final class FirstLine implements RunListener {
  final long begin = System.nanoTime();
  volatile long started;
  volatile long at;
  volatile String text;

  @Override
  public void stepStarted(StepStarted event) {
    if (event.index() == 0 && started == 0) {
      started = System.nanoTime();
    }
  }

  @Override
  public void logWritten(long offset, byte[] bytes) {
    // The first piece after the step started is its output: the header came before.
    if (started != 0 && at == 0) {
      at = System.nanoTime();
      text = new String(bytes, StandardCharsets.UTF_8).lines().findFirst().orElse("");
    }
  }
}
