package dev.knotless.runner.exec;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part every executor shares: a run's private directory under {@code --work}, its checkout, the
 * steps in order on a {@link StepHost}, outputs and log, and the directory removed at the end. An
 * executor is this driver with a host factory. Thread-safe (no state of its own).
 */
public final class RunDriver {

  private static final Logger LOG = LoggerFactory.getLogger(RunDriver.class);

  private final Path workRoot;
  private final Clock clock;
  private final boolean linkObjects;

  /**
   * A driver whose runs' directories go under {@code workRoot} ({@code --work}).
   *
   * @param linkObjects whether checkouts hard-link the mirror's objects (no copy) or copy them: a
   *     step that runs as a user who could not write the mirror otherwise (root in a container)
   *     must get copies, or it could write through a link into the mirror
   */
  public RunDriver(Path workRoot, Clock clock, boolean linkObjects) {
    this.workRoot = Objects.requireNonNull(workRoot, "work root").toAbsolutePath();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.linkObjects = linkObjects;
  }

  /** The work root, absolute. */
  public Path workRoot() {
    return workRoot;
  }

  /**
   * Runs {@code spec} on hosts from {@code hosts}, as {@link Executor#run} describes: the host is
   * closed once the steps end, {@code afterSteps} then sees the checkout, and the directory goes.
   */
  public RunResult run(
      RunSpec spec,
      RunCancellation cancellation,
      RunListener listener,
      AfterSteps afterSteps,
      StepHost.Factory hosts) {
    Objects.requireNonNull(spec, "run spec");
    Objects.requireNonNull(afterSteps, "after steps");
    Objects.requireNonNull(cancellation, "cancellation");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(hosts, "step hosts");
    RunDirectory dir;
    try {
      dir = RunDirectory.create(workRoot);
    } catch (IOException e) {
      String message = "could not make the run's directory under " + workRoot + ": " + e;
      return StepsRun.errorWithoutLog(spec, clock, message, listener);
    }
    try {
      RunResult result =
          new StepsRun(spec, dir, cancellation, listener, clock, hosts, linkObjects).run();
      // The extension point sees the checkout before it goes (a write-back reads git status).
      return afterSteps.apply(dir.checkout(), result);
    } finally {
      try {
        dir.delete();
      } catch (IOException e) {
        LOG.warn("could not remove the run's directory {}: {}", dir.root(), e.toString());
      }
    }
  }
}
