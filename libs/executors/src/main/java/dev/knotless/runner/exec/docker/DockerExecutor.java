package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.ContainerMount;
import com.github.dockerjava.api.model.Network;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import dev.knotless.runner.exec.AfterSteps;
import dev.knotless.runner.exec.CachedRuns;
import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunDriver;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.DiskFloor;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The docker executor: each run in a container of its own, made from the workflow's image or {@code
 * --image}, with the checkout mounted at {@code /work} and each step a {@code sh -ec} exec in it.
 * What a run may take (CPUs, memory with no swap past it, processes, network, runtime) comes from
 * {@link DockerSettings}; runs other than main's get the lower CPU weight. When a run ends its
 * container is removed, killing whatever its steps left, before the caller files anything.
 *
 * <p>Everything it makes carries the runner's DID as a label, and {@link #removeLeftovers} removes
 * what carries it (or mounts a path under the work root) and belongs to no live run of this
 * executor: a start after a crash, and each sweep, find them so. It never touches anything else.
 *
 * <p>It talks to the daemon through docker-java's Engine API client (docs/executor.md says why).
 * Thread-safe: one executor runs any number of runs at once, each on its caller's thread.
 */
public final class DockerExecutor implements Executor, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DockerExecutor.class);

  private final DockerSettings settings;
  private final String runnerDid;
  private final RunDriver driver;
  private final DockerClient control;
  private final DockerClient streams;
  private final Live live = new Live();
  private final CacheStore caches;
  private final DiskFloor floor;

  /**
   * @param settings the daemon's address and what runs may take
   * @param runnerDid the runner's account, put on every container and network as a label
   * @param workRoot {@code --work}: runs' directories, mounted into their containers, go here; it
   *     must be a path the docker daemon sees as the runner does (the same host)
   */
  public DockerExecutor(DockerSettings settings, String runnerDid, Path workRoot, Clock clock) {
    this(settings, runnerDid, workRoot, clock, null);
  }

  /**
   * An executor whose runs mount their workflows' caches from {@code caches} (null for none: cache
   * paths are then ignored, as before caches existed).
   */
  public DockerExecutor(
      DockerSettings settings, String runnerDid, Path workRoot, Clock clock, CacheStore caches) {
    this(settings, runnerDid, workRoot, clock, caches, null);
  }

  /**
   * As above, each run first held by {@code floor} (null for none) until the caches' disk has room.
   */
  public DockerExecutor(
      DockerSettings settings,
      String runnerDid,
      Path workRoot,
      Clock clock,
      CacheStore caches,
      DiskFloor floor) {
    this.caches = caches;
    this.floor = floor;
    this.settings = Objects.requireNonNull(settings, "docker settings");
    this.runnerDid = Objects.requireNonNull(runnerDid, "runner DID");
    // Copies, not links: root in the container could otherwise write into the mirror's objects.
    this.driver = new RunDriver(workRoot, clock, false);
    DockerClientConfig config =
        DefaultDockerClientConfig.createDefaultConfigBuilder()
            .withDockerHost(settings.dockerHost())
            .build();
    // Two clients: calls that should answer at once give up after two minutes, while a step's
    // output stream may be silent for as long as the step runs.
    this.control = client(config, Duration.ofMinutes(2));
    this.streams = client(config, Duration.ZERO);
  }

  private static DockerClient client(DockerClientConfig config, Duration responseTimeout) {
    ApacheDockerHttpClient.Builder http =
        new ApacheDockerHttpClient.Builder()
            .dockerHost(config.getDockerHost())
            .sslConfig(config.getSSLConfig())
            .maxConnections(64)
            .connectionTimeout(Duration.ofSeconds(10));
    if (!responseTimeout.isZero()) {
      http.responseTimeout(responseTimeout);
    }
    return DockerClientImpl.getInstance(config, http.build());
  }

  @Override
  public String name() {
    return "docker";
  }

  /** The settings runs start with. */
  public DockerSettings settings() {
    return settings;
  }

  /**
   * Asks the daemon whether it answers, for the runner's start to log.
   *
   * @throws IOException naming the address and why, when it does not
   */
  public void ping() throws IOException {
    try {
      control.pingCmd().exec();
    } catch (RuntimeException e) {
      throw new IOException(Daemon.unreachable(settings.dockerHost(), e), e);
    }
  }

  @Override
  public RunResult run(
      RunSpec spec, RunCancellation cancellation, RunListener listener, AfterSteps afterSteps) {
    spec = CachedRuns.heldAtTheFloor(floor, spec, cancellation);
    live.starting();
    ContainerHost[] host = new ContainerHost[1];
    RunResult result = null;
    try {
      result =
          driver.run(
              spec,
              cancellation,
              listener,
              afterSteps,
              (s, paths) ->
                  host[0] =
                      new ContainerHost(
                          control, streams, settings, live, runnerDid, s, paths, caches));
    } finally {
      live.ended();
      if (host[0] != null) {
        // The container is gone: its overlays are unmounted, and a pass may promote them.
        List<String> lines =
            host[0]
                .caches()
                .finish(result != null && result.outcome() instanceof RunOutcome.Passed);
        if (result != null && !lines.isEmpty()) {
          result = CachedRuns.withLines(result, lines);
        }
      }
    }
    return result;
  }

  /**
   * Removes this runner's containers that belong to no live run, whether they carry its DID or
   * mount a path under the work root, and its networks while no run is going. Errors are logged,
   * never thrown: a sweep that cannot reach the daemon tries again at the next.
   */
  @Override
  public void removeLeftovers() {
    try {
      int removed = 0;
      List<Container> labelled =
          control
              .listContainersCmd()
              .withShowAll(true)
              .withLabelFilter(Map.of(Labels.RUNNER, runnerDid))
              .exec();
      Set<String> seen = new HashSet<>();
      for (Container c : labelled) {
        seen.add(c.getId());
        removed += removeIfLeft(c, "it carries this runner's label");
      }
      String work = driver.workRoot().toString() + "/";
      for (Container c : control.listContainersCmd().withShowAll(true).exec()) {
        if (!seen.contains(c.getId()) && mountsUnder(c, work)) {
          removed += removeIfLeft(c, "it mounts a path under " + driver.workRoot());
        }
      }
      if (removed > 0) {
        LOG.info("removed {} containers earlier runs left", removed);
      }
      removeIdleNetworks();
    } catch (RuntimeException e) {
      LOG.warn("could not sweep leftover containers: {}", Daemon.why(e));
    }
    if (caches != null) {
      // After the containers: an overlay a leftover container held is free once it is gone.
      caches.removeLeftovers();
    }
  }

  private int removeIfLeft(Container c, String why) {
    if (live.holds(c.getId())) {
      return 0;
    }
    try {
      control.removeContainerCmd(c.getId()).withForce(true).withRemoveVolumes(true).exec();
      LOG.info("removed leftover container {} ({}): {}", shortId(c.getId()), c.getState(), why);
      return 1;
    } catch (RuntimeException e) {
      LOG.warn("could not remove leftover container {}: {}", shortId(c.getId()), Daemon.why(e));
      return 0;
    }
  }

  private void removeIdleNetworks() {
    List<Network> networks =
        control
            .listNetworksCmd()
            .withFilter("label", List.of(Labels.RUNNER + "=" + runnerDid))
            .exec();
    // Decided and done under the lock a run's start waits on: a run that started after the check
    // would otherwise ensure the network and then find it removed (docs in Networks).
    live.whileIdle(
        () -> {
          for (Network n : networks) {
            try {
              control.removeNetworkCmd(n.getId()).exec();
              LOG.info("removed network {}, which no run uses", n.getName());
            } catch (RuntimeException inUse) {
              LOG.debug("network {} stays: {}", n.getName(), Daemon.why(inUse));
            }
          }
        });
  }

  private static boolean mountsUnder(Container c, String workPrefix) {
    if (c.getMounts() == null) {
      return false;
    }
    for (ContainerMount m : c.getMounts()) {
      if (m.getSource() != null && m.getSource().startsWith(workPrefix)) {
        return true;
      }
    }
    return false;
  }

  private static String shortId(String id) {
    return id.length() > 12 ? id.substring(0, 12) : id;
  }

  @Override
  public void close() throws IOException {
    control.close();
    streams.close();
  }

  /**
   * The containers of this executor's live runs, and how many runs are going: a sweep spares the
   * first and removes networks only when the second is 0, under this object's lock, which a run's
   * start takes first. Thread-safe.
   */
  static final class Live {
    private final Set<String> containers = new HashSet<>();
    private int runs;

    synchronized void starting() {
      runs++;
    }

    synchronized void ended() {
      runs--;
    }

    synchronized void add(String id) {
      containers.add(id);
    }

    synchronized void remove(String id) {
      containers.remove(id);
    }

    synchronized boolean holds(String id) {
      return containers.contains(id);
    }

    /**
     * Does {@code action} if no run is going, with no run starting until it is done: a run's {@link
     * #starting} waits for it.
     */
    synchronized void whileIdle(Runnable action) {
      if (runs == 0) {
        action.run();
      }
    }
  }

  /** The caches, or null when this executor keeps none. */
  public CacheStore cacheStore() {
    return caches;
  }

  /** What the caches did, when this executor keeps any. */
  public java.util.Optional<dev.knotless.runner.exec.cache.CacheFigures> cacheFigures() {
    return caches == null ? java.util.Optional.empty() : java.util.Optional.of(caches.figures());
  }
}
