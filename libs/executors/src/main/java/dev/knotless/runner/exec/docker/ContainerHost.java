package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerResponse;
import com.github.dockerjava.api.exception.DockerException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.IdleShell;
import dev.knotless.runner.exec.RunPaths;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.ShellExecutor;
import dev.knotless.runner.exec.StepHost;
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.RunCaches;
import dev.knotless.runner.workflow.ImageNames;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's container: made from the run's image with the checkout at {@code /work}, kept alive by
 * the {@link IdleShell} under docker's init, and each step a {@code sh -ec <script>} exec in it.
 * The container holds no variable of the run's: each exec is given the run's environment, secrets
 * included, through the Engine API's request body, never an argument, so neither {@code docker
 * inspect} nor {@code /proc/1/environ} shows one. Killing a step kills the container (the kernel
 * then kills every process in its PID namespace), and closing removes it. Not thread-safe but for
 * {@link Step#kill} and {@link #close}, which a cancel calls from another thread.
 */
final class ContainerHost implements StepHost {

  /** Where the checkout is mounted, and where steps start. */
  static final String WORK = "/work";

  /** Where the run's outputs directory is mounted; KNOTLESS_RUN_OUTPUTS names it. */
  static final String OUTPUTS = "/knotless/outputs";

  /** The exit status of a process killed by SIGKILL, as a shell reports it. */
  static final int KILLED = 137;

  private static final Logger LOG = LoggerFactory.getLogger(ContainerHost.class);

  private final DockerClient control;
  private final DockerClient streams;
  private final DockerSettings settings;
  private final DockerExecutor.Live live;
  private final RunSpec spec;
  private final RunPaths paths;
  private final String runnerDid;
  private final CacheStore cacheStore;
  private RunCaches caches = RunCaches.none();
  private String containerId;
  private long startedEpochSecond;
  private boolean closed;

  ContainerHost(
      DockerClient control,
      DockerClient streams,
      DockerSettings settings,
      DockerExecutor.Live live,
      String runnerDid,
      RunSpec spec,
      RunPaths paths,
      CacheStore cacheStore) {
    this.control = control;
    this.cacheStore = cacheStore;
    this.streams = streams;
    this.settings = settings;
    this.live = live;
    this.runnerDid = runnerDid;
    this.spec = spec;
    this.paths = paths;
  }

  /** The image this run's container is made from. */
  String image() {
    return dev.knotless.runner.exec.ContainerImage.of(spec, settings.image());
  }

  @Override
  public void open(Consumer<String> log, Duration limit) throws StartFailed, InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    String image = image();
    try {
      // Before the daemon is asked anything: docker's client fails on some names with a message
      // of its own that names nothing.
      ImageNames.check(image);
    } catch (IllegalArgumentException e) {
      throw new StartFailed(e.getMessage(), e);
    }
    try {
      Images.ensure(control, image, log, Duration.ofNanos(deadline - System.nanoTime()));
      openCaches(image, log);
      createAndStart(image);
    } catch (DockerException | IllegalArgumentException e) {
      throw new StartFailed(
          "the container did not start from image " + image + ": " + Daemon.why(e), e);
    } catch (RuntimeException e) {
      throw new StartFailed(Daemon.unreachable(settings.dockerHost(), e), e);
    }
    if (System.nanoTime() > deadline) {
      throw new StartFailed(
          "the container took over " + limit.toSeconds() + "s to start, the step time limit");
    }
    if (spec.steps().stream().anyMatch(ExecStep::endLeftovers)) {
      // Found before any step runs, so nothing of a step's can pass for it.
      try {
        idlePid = IdleShell.parsePid(quietExec(List.of("sh", "-c", IdleShell.FIND)));
      } catch (IOException | IllegalArgumentException e) {
        throw new StartFailed("could not find the container's idle shell: " + e.getMessage(), e);
      }
    }
    String runtime = settings.runtimeFor(spec.trustedCode());
    log.accept(
        "container "
            + containerId.substring(0, 12)
            + " from "
            + image
            + (runtime == null ? "" : ", runtime " + runtime)
            + (settings.network() == null ? "" : ", network " + settings.network()));
  }

  /** How many times a run's container is made when its network moves under it. */
  static final int MAKE_TRIES = 5;

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Makes the run's container and starts it. Its network is ensured just before, and joined by its
   * ID. Another process of this runner may remove that network before the start (see {@link
   * Networks}), or make a copy of the same name that the daemon then calls ambiguous until one is
   * removed: a create or start that meets either tries again, at most {@link #MAKE_TRIES} times.
   */
  private void createAndStart(String image) throws StartFailed {
    for (int attempt = 1; ; attempt++) {
      String network =
          settings.network() == null
              ? null
              : Networks.ensure(control, settings.dockerHost(), settings.network(), runnerDid);
      try {
        synchronized (this) {
          if (closed) {
            throw new StartFailed("the run was cancelled while its container was being made");
          }
          containerId = create(image, network);
          live.add(containerId);
        }
        if (network != null) {
          pinNetwork(network);
        }
        startedEpochSecond = java.time.Instant.now().getEpochSecond() - 1;
        control.startContainerCmd(containerId).exec();
        return;
      } catch (DockerException e) {
        boolean gone = Networks.gone(e);
        if (network == null || attempt == MAKE_TRIES || !(gone || Networks.ambiguous(e))) {
          throw e;
        }
        LOG.info(
            gone
                ? "network {} went before the run's container started: made again"
                : "network {} is doubled by another process's run: trying again once it settles",
            network);
        discardContainer();
        if (!gone) {
          // The other process removes its copy as soon as its own start has seen both.
          sleepQuietly(attempt * 200L);
        }
      }
    }
  }

  /**
   * Pins the made container's network by ID. The daemon records a container's network by name and
   * looks the name up again at start, which fails as ambiguous while another process's network of
   * the same name exists; an endpoint that names the network's ID is used as it is.
   */
  private void pinNetwork(String network) {
    control
        .connectToNetworkCmd()
        .withNetworkId(network)
        .withContainerId(containerId)
        .withContainerNetwork(new ContainerNetwork().withNetworkID(network))
        .exec();
  }

  /** Removes a container made for a start that failed, so the start can be tried again. */
  private void discardContainer() {
    String id;
    synchronized (this) {
      id = containerId;
      containerId = null;
    }
    if (id == null) {
      return;
    }
    try {
      control.removeContainerCmd(id).withForce(true).exec();
    } catch (NotFoundException gone) {
      // A cancel's close removed it already.
    } finally {
      live.remove(id);
    }
  }

  /**
   * Mounts the run's cache overlays, over the image's own files at each path, before the container
   * that binds them is made. {@link #caches} then holds them for the executor to finish once the
   * container is gone.
   */
  private void openCaches(String image, Consumer<String> log) throws StartFailed {
    CacheRequest request = spec.options().get(CacheRequest.class, CacheRequest.NONE);
    if (cacheStore == null || !request.use().mounts()) {
      return;
    }
    try {
      RunCaches opened =
          cacheStore.open(
              request,
              paths.runName(),
              path -> {
                try {
                  return ImageFiles.at(control, cacheStore, live, runnerDid, image, path);
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      synchronized (this) {
        caches = opened;
      }
      opened.describe().forEach(log);
    } catch (IOException | java.io.UncheckedIOException e) {
      throw new StartFailed("could not mount the run's caches: " + e.getMessage(), e);
    }
  }

  /** The run's cache overlays (none until {@link #open} mounted them). */
  synchronized RunCaches caches() {
    return caches;
  }

  /** Makes the container; {@code network} is the ID of the network it joins, or null. */
  private String create(String image, String network) {
    List<Bind> binds = new ArrayList<>();
    binds.add(new Bind(paths.checkout().toString(), new Volume(WORK), AccessMode.rw));
    binds.add(new Bind(paths.outputs().toString(), new Volume(OUTPUTS), AccessMode.rw));
    for (RunCaches.Mount m : caches().mounts()) {
      binds.add(new Bind(m.host().toString(), new Volume(m.containerPath()), AccessMode.rw));
    }
    if (settings.resolv() != null) {
      binds.add(
          new Bind(
              settings.resolv().toAbsolutePath().toString(),
              new Volume("/etc/resolv.conf"),
              AccessMode.ro));
    }
    HostConfig host =
        HostConfig.newHostConfig()
            .withBinds(binds)
            .withInit(true)
            // A setuid binary in the image cannot lift a step above the user it runs as.
            .withSecurityOpts(List.of("no-new-privileges"));
    if (spec.niceness() > 0) {
      host.withCpuShares(DockerSettings.BACKGROUND_CPU_SHARES);
    }
    if (settings.cpus() > 0) {
      host.withNanoCPUs(Math.round(settings.cpus() * 1e9));
    }
    if (settings.memoryGiB() > 0) {
      host.withMemory(settings.memoryBytes()).withMemorySwap(settings.memoryBytes());
    }
    if (settings.pids() > 0) {
      host.withPidsLimit((long) settings.pids());
    }
    if (network != null) {
      host.withNetworkMode(network);
    }
    String runtime = settings.runtimeFor(spec.trustedCode());
    if (runtime != null) {
      host.withRuntime(runtime);
    }
    CreateContainerResponse made =
        control
            .createContainerCmd(image)
            .withName("knotless-" + paths.runName())
            .withLabels(Labels.container(runnerDid, paths.runName()))
            .withEntrypoint("sh", "-c", IdleShell.SCRIPT)
            .withCmd(List.of())
            .withWorkingDir(WORK)
            .withAttachStdin(false)
            .withAttachStdout(false)
            .withAttachStderr(false)
            .withHostConfig(host)
            .exec();
    return made.getId();
  }

  /**
   * Kills every process in the container but its init, its idle shell and the idle shell's sleep
   * ({@link IdleShell#SWEEP}): what a step left running where a later step is given secrets, or
   * what a step given secrets left. The killing exec gets no variable of the run's.
   */
  @Override
  public int endLeftovers() throws IOException {
    if (idlePid <= 1) {
      return 0;
    }
    try {
      return Integer.parseInt(quietExec(IdleShell.sweepCommand(idlePid)).strip());
    } catch (NumberFormatException e) {
      throw new IOException("the container did not say what it ended", e);
    }
  }

  private long idlePid;

  /** Runs a command of the runner's in the container, with no variable of the run's. */
  private String quietExec(List<String> command) throws IOException {
    try {
      String execId =
          control
              .execCreateCmd(containerId)
              .withCmd(command.toArray(String[]::new))
              .withEnv(List.of())
              .withAttachStdin(false)
              .withAttachStdout(true)
              .withAttachStderr(false)
              .exec()
              .getId();
      ExecOutput output = new ExecOutput();
      streams.execStartCmd(execId).withDetach(false).withTty(false).exec(output);
      try (java.io.InputStream in = output.stream()) {
        byte[] out = in.readNBytes(4096);
        return new String(out, java.nio.charset.StandardCharsets.UTF_8);
      }
    } catch (DockerException e) {
      throw new IOException("the container refused the runner's exec: " + Daemon.why(e), e);
    }
  }

  @Override
  public Map<String, String> stepEnvironment(Map<String, String> runEnv) {
    Map<String, String> env = new LinkedHashMap<>(runEnv);
    env.put(ShellExecutor.OUTPUTS_VARIABLE, OUTPUTS);
    return env;
  }

  @Override
  public Step start(ExecStep step, Map<String, String> env) throws IOException {
    List<String> vars = new ArrayList<>(env.size());
    env.forEach((k, v) -> vars.add(k + "=" + v));
    try {
      String execId =
          control
              .execCreateCmd(containerId)
              .withCmd("sh", "-ec", step.script())
              .withEnv(vars)
              .withWorkingDir(WORK)
              .withAttachStdin(false)
              .withAttachStdout(true)
              .withAttachStderr(true)
              .exec()
              .getId();
      ExecOutput output = new ExecOutput();
      streams.execStartCmd(execId).withDetach(false).withTty(false).exec(output);
      return new ExecStepRun(
          control,
          settings,
          settings.runtimeFor(spec.trustedCode()),
          containerId,
          startedEpochSecond,
          this::killContainer,
          execId,
          output);
    } catch (DockerException e) {
      throw new IOException("the container refused the step: " + Daemon.why(e), e);
    } catch (RuntimeException e) {
      throw new IOException(Daemon.unreachable(settings.dockerHost(), e), e);
    }
  }

  /** Kills the container, and with it every process in it; never throws. */
  void killContainer() {
    String id;
    synchronized (this) {
      id = containerId;
    }
    if (id == null) {
      return;
    }
    try {
      control.killContainerCmd(id).withSignal("KILL").exec();
    } catch (RuntimeException e) {
      // Not running any more, or the daemon is gone: either way nothing of it runs on.
      LOG.debug("kill of container {}: {}", id, e.toString());
    }
  }

  @Override
  public void close() {
    String id;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      id = containerId;
    }
    if (id == null) {
      return;
    }
    try {
      control.removeContainerCmd(id).withForce(true).withRemoveVolumes(true).exec();
    } catch (NotFoundException gone) {
      // Removed already (a sweep of a runner that thought it a leftover): gone is what we want.
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "could not remove container " + id.substring(0, 12) + ": " + Daemon.why(e), e);
    } finally {
      live.remove(id);
    }
  }
}
