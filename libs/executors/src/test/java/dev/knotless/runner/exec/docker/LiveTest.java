package dev.knotless.runner.exec.docker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class LiveTest {

  @Test
  void aRunStartingWhileTheSweepRemovesNetworksWaitsForItToFinish() throws Exception {
    DockerExecutor.Live live = new DockerExecutor.Live();
    CountDownLatch removing = new CountDownLatch(1);
    CountDownLatch removed = new CountDownLatch(1);
    CompletableFuture<Void> sweep =
        CompletableFuture.runAsync(
            () ->
                live.whileIdle(
                    () -> {
                      removing.countDown();
                      try {
                        removed.await();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }));
    assertTrue(removing.await(10, TimeUnit.SECONDS));
    CompletableFuture<Void> start = CompletableFuture.runAsync(live::starting);
    Thread.sleep(200);
    assertFalse(start.isDone(), "the run's start went on while the sweep was removing networks");
    removed.countDown();
    start.get(10, TimeUnit.SECONDS);
    sweep.get(10, TimeUnit.SECONDS);
  }

  @Test
  void theSweepRemovesNoNetworkWhileARunIsGoing() {
    DockerExecutor.Live live = new DockerExecutor.Live();
    AtomicBoolean swept = new AtomicBoolean();
    live.starting();
    live.whileIdle(() -> swept.set(true));
    assertFalse(swept.get());
    live.ended();
    live.whileIdle(() -> swept.set(true));
    assertTrue(swept.get());
  }
}
