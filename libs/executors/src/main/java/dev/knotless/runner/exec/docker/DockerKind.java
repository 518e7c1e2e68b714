package dev.knotless.runner.exec.docker;

import dev.knotless.runner.exec.CachedRuns;
import dev.knotless.runner.exec.ExecutorConfig;
import dev.knotless.runner.exec.ExecutorContext;
import dev.knotless.runner.exec.ExecutorKind;
import dev.knotless.runner.exec.cache.CacheSettings;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.DiskFloor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code docker} kind: each run in a container of its own ({@link DockerExecutor}). It owns the
 * container flags ({@code --image}, the limits, {@code --network}, the runtimes, {@code --resolv})
 * and the cache flags, reads the daemon's address from {@code docker-host} (a service's config),
 * else {@code DOCKER_HOST}, else {@link DockerSettings#DEFAULT_HOST}, and can run when that daemon
 * answers. Stateless.
 */
public final class DockerKind implements ExecutorKind<DockerKind.Settings> {

  /** What it is called. */
  public static final String NAME = "docker";

  /** The key of the daemon's address; a service's config sets it, the command line does not. */
  public static final String DOCKER_HOST = "docker-host";

  private static final Logger LOG = LoggerFactory.getLogger(DockerKind.class);

  private static final List<String> FLAGS =
      List.of(
          "image",
          "cpus",
          "memory",
          "pids",
          "network",
          "runtime",
          "trusted-runtime",
          "resolv",
          "cache-dir",
          "cache-max",
          "disk-floor");

  /**
   * The docker kind's settings. Immutable.
   *
   * @param docker what runs' containers are made from and may take, and the daemon's address
   * @param caches where workflows' caches are kept, {@link CacheSettings#NONE} for nowhere
   */
  public record Settings(DockerSettings docker, CacheSettings caches) {

    /** Checks the values. */
    public Settings {
      Objects.requireNonNull(docker, "docker settings");
      Objects.requireNonNull(caches, "cache settings");
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<String> flags() {
    return FLAGS;
  }

  @Override
  public String what() {
    return "runs steps in containers";
  }

  @Override
  public Settings settings(ExecutorConfig c) {
    String host =
        c.text(DOCKER_HOST)
            .or(() -> Optional.ofNullable(c.env().get("DOCKER_HOST")).filter(h -> !h.isBlank()))
            .orElse(DockerSettings.DEFAULT_HOST);
    DockerSettings d = DockerSettings.defaults().withDockerHost(host);
    d = d.withImage(c.text("image").orElse(d.image()));
    d =
        d.withLimits(
            c.cpus("cpus").orElse(d.cpus()),
            c.wholeAbove0("memory", "GiB, such as 4").orElse(d.memoryGiB()),
            c.wholeAbove0("pids", "processes, such as 512").orElse(d.pids()));
    d = d.withNetwork(c.text("network").orElse(d.network()));
    d =
        d.withRuntimes(
            c.text("runtime").orElse(d.runtime()),
            c.text("trusted-runtime").orElse(d.trustedRuntime()));
    Optional<String> resolv = c.get("resolv");
    if (resolv.isPresent()) {
      Path file = Path.of(resolv.get());
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException(
            "--resolv " + resolv.get() + ": no such file on this host");
      }
      d = d.withResolv(file.toAbsolutePath());
    }
    CacheSettings caches = CachedRuns.settings(c);
    return new Settings(d, caches);
  }

  @Override
  public Optional<String> unavailable(Settings settings) {
    try (DockerExecutor probe =
        new DockerExecutor(settings.docker(), "", Path.of("."), Clock.systemUTC())) {
      probe.ping();
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(e.getMessage());
    }
  }

  @Override
  public DockerExecutor open(Settings settings, ExecutorContext context) {
    CacheSettings caches = settings.caches();
    CachedRuns.Opened opened = CachedRuns.open(caches);
    CacheStore store = opened.store();
    DiskFloor floor = opened.floor();
    if (store != null) {
      LOG.info("caches kept under {}, a base up to {} GiB", caches.dir(), caches.maxBytes() >> 30);
    }
    DockerExecutor executor =
        new DockerExecutor(
            settings.docker(), context.runnerDid(), context.work(), context.clock(), store, floor);
    try {
      executor.ping();
      LOG.info(
          "runs go in containers through the docker daemon at {}", settings.docker().dockerHost());
    } catch (IOException e) {
      // Runs end as errors that say so until it answers; the runner still reads and files.
      LOG.error("{}: runs end as errors until it answers", e.getMessage());
    }
    return executor;
  }
}
