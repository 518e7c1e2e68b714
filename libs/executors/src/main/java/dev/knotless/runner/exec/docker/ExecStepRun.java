package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectExecResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.knotless.runner.exec.StepHost.Step;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Optional;

/**
 * One step's exec in a run's container, as the run loop sees a step. Its exit status comes from the
 * daemon's record of the exec, never from the output stream closing. Not thread-safe but for {@link
 * #kill}, which a cancel calls from another thread.
 */
final class ExecStepRun implements Step {

  /** How often a step's wait asks whether its container stopped on its own: a second. */
  private static final long LOOK_EVERY = 1_000_000_000L;

  /**
   * How long a step that ended by a signal waits for its container to be counted stopped, when it
   * may have died under the step: two seconds.
   */
  private static final long STOP_GRACE = 2_000_000_000L;

  private final DockerClient control;
  private final DockerSettings settings;
  private final String runtime;
  private final String containerId;
  private final long startedEpochSecond;
  private final Runnable killContainer;
  private final String execId;
  private final ExecOutput output;
  private volatile boolean killed;

  /** The container's exit status once it stopped while the step ran and no kill of ours did it. */
  private volatile Integer died;

  ExecStepRun(
      DockerClient control,
      DockerSettings settings,
      String runtime,
      String containerId,
      long startedEpochSecond,
      Runnable killContainer,
      String execId,
      ExecOutput output) {
    this.control = control;
    this.settings = settings;
    this.runtime = runtime;
    this.containerId = containerId;
    this.startedEpochSecond = startedEpochSecond;
    this.killContainer = killContainer;
    this.execId = execId;
    this.output = output;
  }

  @Override
  public long pid() {
    try {
      Long pid = control.inspectExecCmd(execId).exec().getPidLong();
      return pid == null ? 0 : pid;
    } catch (RuntimeException e) {
      return 0;
    }
  }

  @Override
  public InputStream output() {
    return output.stream();
  }

  @Override
  public boolean waitFor(Duration limit) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    if (!awaitEnd(deadline)) {
      return false;
    }
    // The stream ends with the step, or before it when a step closes its output: then ask.
    while (running()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      Thread.sleep(Math.min(50, Math.max(1, left / 1_000_000)));
    }
    return true;
  }

  private boolean running() throws IOException {
    if (output.lost() != null) {
      throw new IOException(
          Daemon.unreachable(settings.dockerHost(), output.lost()), output.lost());
    }
    if ((killed || died != null) && containerStopped()) {
      // Under runsc the daemon may count a dead container's exec as running for good.
      return false;
    }
    try {
      return Boolean.TRUE.equals(control.inspectExecCmd(execId).exec().isRunning());
    } catch (RuntimeException e) {
      throw new IOException(Daemon.unreachable(settings.dockerHost(), e), e);
    }
  }

  @Override
  public int waitForExit() throws IOException, InterruptedException {
    // After a kill the container is dead, so the stream ends (see awaitEnd); a daemon that does
    // not end it in a minute is not answering.
    if (!awaitEnd(System.nanoTime() + Duration.ofMinutes(1).toNanos())) {
      throw new IOException("the docker daemon did not end a killed step's output in a minute");
    }
    try {
      InspectExecResponse exec = control.inspectExecCmd(execId).exec();
      Long code = exec.getExitCodeLong();
      return code == null ? ContainerHost.KILLED : code.intValue();
    } catch (NotFoundException gone) {
      return ContainerHost.KILLED;
    } catch (RuntimeException e) {
      if (output.lost() != null) {
        throw new IOException(Daemon.unreachable(settings.dockerHost(), e), e);
      }
      return ContainerHost.KILLED;
    }
  }

  /**
   * Waits until {@code deadline} (a {@link System#nanoTime}) for the output to end; true if it did.
   * Under runc a dead container's exec stream ends at once. Under gVisor's runsc it at times never
   * ends, even once the container is removed: so once the daemon says the container stopped, after
   * a kill of ours or on its own (runsc's whole sandbox ends when the kernel kills it for memory,
   * or when it can start no more threads), the stream is ended here, as a stream ends (a close
   * would read as a stream lost). The hung connection is the daemon's to drop.
   */
  private boolean awaitEnd(long deadline) throws InterruptedException {
    long nextLook = System.nanoTime() + LOOK_EVERY;
    while (true) {
      long left = deadline - System.nanoTime();
      // In slices, so a kill from another thread is seen while the step runs.
      if (output.awaitEnd(Duration.ofNanos(Math.min(left, 100_000_000L)))) {
        return true;
      }
      if (killed && containerStopped()) {
        output.onComplete();
        return true;
      }
      if (!killed && System.nanoTime() - nextLook >= 0) {
        nextLook = System.nanoTime() + LOOK_EVERY;
        Integer status = stoppedWith();
        if (status != null) {
          died = status;
          output.onComplete();
          return true;
        }
      }
      if (deadline - System.nanoTime() <= 0) {
        return false;
      }
    }
  }

  /** The container's exit status if it stops within {@code nanos}, else null. */
  private Integer awaitStopped(long nanos) {
    long deadline = System.nanoTime() + nanos;
    while (true) {
      Integer status = stoppedWith();
      if (status != null || System.nanoTime() - deadline >= 0) {
        return status;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  /** The container's exit status once it stopped, or null while it runs or cannot be asked. */
  private Integer stoppedWith() {
    try {
      var state = control.inspectContainerCmd(containerId).exec().getState();
      if (Boolean.TRUE.equals(state.getRunning())) {
        return null;
      }
      return state.getExitCodeLong() == null
          ? ContainerHost.KILLED
          : state.getExitCodeLong().intValue();
    } catch (NotFoundException gone) {
      return ContainerHost.KILLED;
    } catch (RuntimeException e) {
      // Not answering now: the output's loss or the step's limit decides.
      return null;
    }
  }

  /** True once the daemon says the container is not running, or is gone. */
  private boolean containerStopped() {
    return stoppedWith() != null;
  }

  @Override
  public void kill() {
    // The Engine API cannot signal one exec: killing the container's init is one kill(2) by the
    // daemon, and the kernel then kills every process in the container, the step's group and
    // whatever left it. A killed step ends the run, so the container is removed right after.
    killed = true;
    killContainer.run();
  }

  @Override
  public void ended() {
    // What the step left running stays for the next step, as a container's would.
  }

  @Override
  public Optional<String> exitNote(int exit) {
    if (died == null && !killed && exit >= 128) {
      // runsc may end the exec of a sandbox that died (exit 128, "waiting on pid ...: EOF") before
      // the daemon counts the container stopped.
      died = awaitStopped(STOP_GRACE);
    }
    if (died != null) {
      return Optional.of(diedNote(died));
    }
    if (exit != ContainerHost.KILLED || settings.memoryGiB() == 0) {
      return Optional.empty();
    }
    // The container lives on when the kernel kills one of its processes for memory, so its state
    // does not say OOMKilled (docker sets that as the container exits); its events do.
    return OomEvents.since(control, containerId, startedEpochSecond)
        ? Optional.of(memoryNote())
        : Optional.empty();
  }

  /**
   * Why the container stopped under the step. Under runc the kernel kills a process for memory and
   * the container lives on; under gVisor it kills the sandbox, all of it. And gVisor's sandbox's
   * own threads count against {@code --pids} with the run's processes (each process inside costs
   * several threads outside), so where runc's fork fails, the sandbox ends.
   */
  private String diedNote(int status) {
    if (settings.memoryGiB() > 0 && OomEvents.since(control, containerId, startedEpochSecond)) {
      return memoryNote();
    }
    String note =
        "the container stopped with status "
            + status
            + (runtime == null ? "" : " under runtime " + runtime);
    if (runtime != null && settings.pids() > 0) {
      note +=
          ": under gVisor the sandbox's own threads count against --pids "
              + settings.pids()
              + " with the run's processes, and a run that reaches it ends the sandbox";
    }
    return note;
  }

  private String memoryNote() {
    return "killed for want of memory: the run may take "
        + settings.memoryGiB()
        + " GiB (--memory)";
  }
}
