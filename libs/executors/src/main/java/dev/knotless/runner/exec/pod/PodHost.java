package dev.knotless.runner.exec.pod;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.IdleShell;
import dev.knotless.runner.exec.RunPaths;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.ShellExecutor;
import dev.knotless.runner.exec.StepHost;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's pod: made from {@link RunPod}, the checkout copied in through exec stdin as tar (with
 * the first step's launch, in the same exec, for a pod made here), each step started by the {@link
 * Launcher} and followed through the API server, the outputs copied out ({@link #collectOutputs})
 * and the pod deleted once the last step's output was read to its end. Not thread-safe but for
 * {@link Step#kill} and {@link #close}, which a cancel calls from another thread.
 */
final class PodHost implements StepHost {

  /** The exit status the log reports for a step killed by SIGKILL, as a shell reports it. */
  static final int KILLED = 137;

  /** The most file data a write-back's checkout brings back from the pod. */
  static final long MAX_CHECKOUT_BYTES = 1L << 30;

  /**
   * The most file data copied back from a pod's outputs directory: a bound on the runner's own
   * disk, far past what the outputs' limits keep, since every file small enough to be read comes
   * back before they choose.
   */
  static final long MAX_OUTPUTS_COPY_BYTES = 1L << 30;

  private static final Logger LOG = LoggerFactory.getLogger(PodHost.class);

  private final PodApi api;
  private RunPod pod;
  private final RunSpec spec;
  private final RunPaths paths;
  private final PodExecutor.Live live;
  private final boolean adopted;
  private final PodObserver observer;
  private final boolean copyBack;
  private final PodCaches caches;
  private volatile String copyBackFailed;
  private int steps;
  private long idlePid;
  private volatile PodApi.Watching watch;
  private volatile StepOutput reading;
  private volatile String lostReason;
  private boolean created;
  private boolean closed;
  // The checkout goes in with the first step's launch (one exec for both); until then the pod's
  // /work is empty, and nothing is copied back from it.
  private volatile boolean checkoutPending;

  /**
   * @param adopted whether {@code pod} exists already, made by a runner that since stopped: it is
   *     then neither made nor given the checkout again, and the steps it launched are followed, not
   *     started twice ({@link Launcher#LAUNCH} starts a step once)
   */
  PodHost(
      PodApi api,
      RunPod pod,
      RunSpec spec,
      RunPaths paths,
      PodExecutor.Live live,
      boolean adopted,
      PodObserver observer) {
    this(api, pod, spec, paths, live, adopted, observer, false, null);
  }

  /**
   * As above; with {@code copyBack}, the pod's /work replaces the runner's checkout (all but its
   * .git) before the pod is deleted, for a run whose {@code AfterSteps} reads it (a write-back);
   * {@code caches} (null for none) are copied in after the checkout and, after a pass, back out.
   */
  PodHost(
      PodApi api,
      RunPod pod,
      RunSpec spec,
      RunPaths paths,
      PodExecutor.Live live,
      boolean adopted,
      PodObserver observer,
      boolean copyBack,
      PodCaches caches) {
    this.copyBack = copyBack;
    this.caches = caches;
    this.api = api;
    this.pod = pod;
    this.spec = spec;
    this.paths = paths;
    this.live = live;
    this.adopted = adopted;
    this.observer = observer;
  }

  @Override
  public void open(Consumer<String> log, Duration limit) throws StartFailed, InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    try {
      synchronized (this) {
        if (closed) {
          throw new StartFailed("the run was cancelled while its pod was being made");
        }
        live.add(pod.name());
        created = true;
      }
      if (adopted) {
        LOG.info("adopted pod {}: its steps are followed from their first byte", pod.name());
        api.awaitRunning(pod.name(), Duration.ofNanos(deadline - System.nanoTime()));
        if (!PodCopies.checkedOut(api, pod.name())) {
          // The runner that made it stopped before the checkout was whole, so no step ran: steps
          // run on an empty or half tree would check code that is not the commit's.
          LOG.info("adopted pod {}: its checkout was not finished; it is made again", pod.name());
          checkoutIn();
        }
        adoptCaches(log);
      } else {
        if (caches != null && caches.mounted()) {
          pod = pod.withCaches(caches.mountOnNode(), caches.node());
        }
        api.create(pod);
        synchronized (this) {
          if (closed) {
            // A cancel closed the host while the pod was being made: delete what was made.
            api.delete(pod.name());
            throw new StartFailed("the run was cancelled while its pod was being made");
          }
        }
        long made = System.nanoTime();
        try {
          api.awaitRunning(pod.name(), Duration.ofNanos(deadline - System.nanoTime()));
        } catch (PodApi.NotRunning e) {
          observer.notRunning(e.imagePull());
          throw e;
        }
        observer.running(Duration.ofNanos(System.nanoTime() - made));
        if (observer != PodObserver.NONE) {
          pullTime();
        }
        if (caches == null || caches.mounted()) {
          // Volumes of the node lie outside /work, which the unpack empties: nothing goes in
          // through an exec of their own, so the checkout still comes with the first launch.
          checkoutPending = true;
          if (caches != null) {
            caches.restore(api, pod.name(), log);
          }
        } else {
          // Copied caches go in after the checkout, whose unpack empties /work first: their pods
          // keep the exec of its own.
          checkoutIn();
          caches.restore(api, pod.name(), log);
        }
      }
      if (spec.steps().stream().anyMatch(ExecStep::endLeftovers)) {
        idlePid = idlePid();
      }
      watch = api.whenLost(pod.name(), this::lost);
    } catch (PodApi.NotRunning e) {
      throw new StartFailed(e.getMessage(), e);
    } catch (IOException e) {
      throw new StartFailed("the run's pod " + pod.name() + " did not start: " + e.getMessage(), e);
    }
    log.accept(
        "pod "
            + pod.name()
            + " from "
            + pod.image()
            + (pod.runtimeClassName() == null ? "" : ", runtime class " + pod.runtimeClassName()));
  }

  /**
   * Reads the pod's events once, now that it runs, and tells the observer how long its image took
   * to pull, if it was pulled. The kubelet records its events before the container starts, but a
   * real one sends them on its own time: one not yet at the API server is not waited for, and a
   * failure to read them costs the run nothing.
   */
  private void pullTime() {
    try {
      ImagePulls.pullTime(api.events(pod.name())).ifPresent(observer::pulled);
    } catch (IOException | RuntimeException e) {
      LOG.debug("pod {}: its events could not be read: {}", pod.name(), e.toString());
    }
  }

  /**
   * The caches of an adopted pod: restored as for a new one if no step began (the runner that made
   * it may have stopped as it copied them in); else the steps go on with what the pod holds, and
   * nothing this run writes there is kept, as this runner never opened the bases it read.
   */
  private void adoptCaches(Consumer<String> log)
      throws IOException, InterruptedException, StartFailed {
    if (caches == null) {
      return;
    }
    if (caches.mounted()) {
      for (String path : caches.containerPaths()) {
        log.accept(
            "cache "
                + path
                + ": this pod was adopted, its volume the overlay of the runner that made it;"
                + " what the run writes there is not kept");
      }
      return;
    }
    if (!PodCopies.stepsBegun(api, pod.name())) {
      caches.restore(api, pod.name(), log);
      return;
    }
    for (String path : caches.containerPaths()) {
      log.accept(
          "cache "
              + path
              + ": not restored, this pod was adopted after its steps began; what the run"
              + " writes there is not kept");
    }
  }

  private void checkoutIn() throws IOException, InterruptedException, StartFailed {
    try {
      PodCopies.checkoutIn(api, pod.name(), paths);
    } catch (PodCopies.Refused e) {
      throw new StartFailed(e.getMessage());
    }
  }

  /** The pod's idle shell, found before a step runs (or, adopted, as the lowest pid but 1). */
  private long idlePid() throws IOException, InterruptedException, StartFailed {
    String out =
        PodCommands.run(api, pod.name(), Launcher.idlePidCommand(), null, 64, PodCommands.SHORT)
            .text();
    try {
      return IdleShell.parsePid(out);
    } catch (IllegalArgumentException e) {
      throw new StartFailed(
          "could not find the idle shell of pod " + pod.name() + ": " + e.getMessage());
    }
  }

  /**
   * Kills every process in the pod but its own (pid 1, the idle shell and its sleep, the runner's
   * execs): what a step left running where a later step is given secrets, or what a step given
   * secrets left. The killing exec gets no variable of the run's.
   */
  @Override
  public int endLeftovers() throws IOException {
    if (idlePid <= 1) {
      return 0;
    }
    try {
      String out =
          PodCommands.run(
                  api,
                  pod.name(),
                  Launcher.endLeftoversCommand(idlePid),
                  null,
                  64,
                  PodCommands.SHORT)
              .text()
              .strip();
      return Integer.parseInt(out);
    } catch (NumberFormatException e) {
      throw new IOException("pod " + pod.name() + " did not say what it ended", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while ending a step's leftovers", e);
    }
  }

  /** The API server said the pod is lost: the step being read ends now, as an error. */
  private void lost(String why) {
    LOG.warn("{}", why);
    lostReason = why;
    StepOutput o = reading;
    if (o != null) {
      o.lose(why);
    }
  }

  @Override
  public Map<String, String> stepEnvironment(Map<String, String> runEnv) {
    Map<String, String> env = new LinkedHashMap<>(runEnv);
    env.put(ShellExecutor.OUTPUTS_VARIABLE, Launcher.OUTPUTS);
    return env;
  }

  @Override
  public Step start(ExecStep step, Map<String, String> env) throws IOException {
    boolean unpack = checkoutPending;
    byte[] code;
    try {
      code = Launcher.stdin(env, step.script());
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
    int index = steps++;
    PodApi.Exec launcher =
        api.exec(
            pod.name(),
            unpack
                ? Launcher.unpackAndLaunchCommand(index, spec.niceness())
                : Launcher.launchCommand(index, spec.niceness()));
    try {
      OutputStream in = launcher.stdin();
      if (unpack) {
        // The code only once the tar is in: the pod's head may read ahead of the tar's end.
        PodCopies.checkoutInto(in, paths);
        in.flush();
        PodCopies.awaitUnpacked(launcher, pod.name());
        checkoutPending = false;
      }
      in.write(code);
      in.flush();
    } catch (IOException e) {
      launcher.close();
      throw e;
    }
    // The launching exec goes on as the step's first follower: no exec more before its output.
    StepOutput output = new StepOutput(api, pod.name(), index, launcher);
    reading = output;
    if (lostReason != null) {
      output.lose(lostReason);
    }
    return new PodStep(index, launcher, output);
  }

  /**
   * Copies the pod's outputs directory into the run's, before the pod goes: the run loop then reads
   * it as it reads every executor's. A lost pod's are not copied (its exec could hang as long as
   * the copy's limit): its run ends as an error, whose outputs are never read.
   */
  @Override
  public void collectOutputs() throws IOException, InterruptedException {
    synchronized (this) {
      if (closed || !created) {
        return;
      }
    }
    if (lostReason == null && steps > 0) {
      PodCopies.outputsOut(api, pod.name(), paths.outputs(), MAX_OUTPUTS_COPY_BYTES);
    }
  }

  /** The outputs, then, after a pass, what the run wrote at its cache paths. */
  @Override
  public void collectOutputs(dev.knotless.runner.exec.RunOutcome outcome)
      throws IOException, InterruptedException {
    collectOutputs();
    if (caches != null
        && outcome instanceof dev.knotless.runner.exec.RunOutcome.Passed
        && lostReason == null) {
      synchronized (this) {
        if (closed || !created) {
          return;
        }
      }
      caches.copyOut(api, pod.name());
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      if (!created) {
        return;
      }
    }
    PodApi.Watching w = watch;
    if (w != null) {
      // The pod's own deletion, below, is no loss.
      w.close();
    }
    if (copyBack) {
      copyBackFailed = lostReason;
      try {
        // No step ran (each skipped): the pod's /work never held the checkout, which stays.
        if (lostReason == null && !checkoutPending) {
          PodCopies.checkoutBack(api, pod.name(), paths.checkout(), MAX_CHECKOUT_BYTES);
        }
      } catch (IOException e) {
        copyBackFailed = e.getMessage();
        LOG.warn("could not copy the checkout of pod {} back: {}", pod.name(), e.toString());
      } catch (InterruptedException e) {
        copyBackFailed = "interrupted while copying the checkout back";
        Thread.currentThread().interrupt();
      }
    }
    try {
      api.delete(pod.name());
    } catch (IOException e) {
      throw new IllegalStateException("could not delete pod " + pod.name() + ": " + e, e);
    } finally {
      live.remove(pod.name());
    }
  }

  /**
   * Why the pod's /work could not be copied back into the runner's checkout, or null if it was (or
   * was not asked for). Read after {@link #close}.
   */
  String copyBackFailed() {
    return copyBackFailed;
  }

  /** One step, as the run loop sees it. */
  private final class PodStep implements Step {
    private final int index;
    private final PodApi.Exec launcher;
    private final StepOutput output;

    PodStep(int index, PodApi.Exec launcher, StepOutput output) {
      this.index = index;
      this.launcher = launcher;
      this.output = output;
    }

    @Override
    public long pid() {
      return index + 1L;
    }

    @Override
    public InputStream output() {
      return output;
    }

    @Override
    public boolean waitFor(Duration limit) throws IOException, InterruptedException {
      return output.exit(limit).isPresent();
    }

    @Override
    public int waitForExit() throws IOException, InterruptedException {
      OptionalInt exit = output.exit(Duration.ofMinutes(1));
      if (exit.isEmpty()) {
        throw new IOException(
            "pod " + pod.name() + " recorded no exit for a killed step within a minute");
      }
      return exit.getAsInt();
    }

    @Override
    public void kill() {
      try {
        PodCommands.run(
            api, pod.name(), Launcher.killCommand(index), null, 4096, PodCommands.SHORT);
      } catch (IOException | RuntimeException e) {
        // The API server did not take the kill: deleting the pod kills everything in it.
        LOG.warn("could not kill step {} in pod {}: {}", index, pod.name(), e.toString());
        try {
          api.delete(pod.name());
        } catch (IOException | RuntimeException again) {
          LOG.warn("could not delete pod {} either: {}", pod.name(), again.toString());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void ended() {
      // What the step left running stays for the next step, as in a container.
      launcher.close();
    }
  }
}
