package dev.knotless.runner.exec.pod;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * A pod API whose runner dies as it starts the exec {@code diesAt} picks: every call from then on
 * fails, its pod's deletion included, as if its process had stopped there.
 */
final class DyingPodApi implements PodApi {
  private final PodApi api;
  private final Predicate<List<String>> diesAt;
  private final boolean freezes;
  private volatile boolean dead;

  DyingPodApi(PodApi api, Predicate<List<String>> diesAt) {
    this(api, diesAt, false);
  }

  /**
   * As above; with {@code freezes}, a call after the death never returns instead of failing, so the
   * runner's thread cleans up nothing after it, as a process killed with SIGKILL.
   */
  DyingPodApi(PodApi api, Predicate<List<String>> diesAt, boolean freezes) {
    this.api = api;
    this.diesAt = diesAt;
    this.freezes = freezes;
  }

  /** Kills the runner now. */
  void die() {
    dead = true;
  }

  private void alive() throws IOException {
    while (dead && freezes) {
      java.util.concurrent.locks.LockSupport.park(this);
    }
    if (dead) {
      throw new IOException("this runner's process is gone");
    }
  }

  @Override
  public void create(RunPod pod) throws IOException {
    alive();
    api.create(pod);
  }

  @Override
  public void awaitRunning(String name, Duration limit)
      throws IOException, InterruptedException, NotRunning {
    alive();
    api.awaitRunning(name, limit);
  }

  @Override
  public Exec exec(String name, List<String> command) throws IOException {
    if (diesAt.test(command)) {
      dead = true;
    }
    alive();
    return api.exec(name, command);
  }

  @Override
  public void delete(String name) throws IOException {
    alive();
    api.delete(name);
  }

  @Override
  public List<Listed> list(String runnerLabel) throws IOException {
    alive();
    return api.list(runnerLabel);
  }
}
