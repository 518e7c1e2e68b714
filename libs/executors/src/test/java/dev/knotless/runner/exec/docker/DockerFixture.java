package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.GitFixture;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.testing.LocalDocker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the docker executor's tests share: the harness's daemon and images, a mirror with one
 * commit, a work root per test, a runner DID of the test's own (so tests never see each other's
 * containers), and a client of the test's to look at what the executor made.
 */
final class DockerFixture implements AutoCloseable {

  final GitFixture repo;
  final Path work;
  final String runnerDid;
  final DockerClient docker;
  private final java.util.Set<String> inspected =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private DockerFixture(GitFixture repo, Path work, String runnerDid, DockerClient docker) {
    this.repo = repo;
    this.work = work;
    this.runnerDid = runnerDid;
    this.docker = docker;
  }

  static DockerFixture create() throws IOException, InterruptedException {
    LocalDocker.ensure();
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    Files.createDirectories(tmp);
    GitFixture repo = GitFixture.create(Files.createTempDirectory(tmp, "docker-executor-it-"));
    Path work = Files.createDirectories(repo.root.resolve("work"));
    var config =
        DefaultDockerClientConfig.createDefaultConfigBuilder()
            .withDockerHost(DockerSettings.DEFAULT_HOST)
            .build();
    var http = new ApacheDockerHttpClient.Builder().dockerHost(config.getDockerHost()).build();
    String did = "did:plc:test" + Long.toHexString(System.nanoTime());
    return new DockerFixture(repo, work, did, DockerClientImpl.getInstance(config, http));
  }

  /** What {@link EachRuntime} passes for the daemon's default runtime, runc. */
  static final String DEFAULT_RUNTIME = "default";

  DockerSettings settings() {
    return DockerSettings.defaults().withImage(LocalDocker.BUSYBOX);
  }

  /**
   * The settings of a run under {@code runtime}, for everyone's code alike: {@link
   * #DEFAULT_RUNTIME} leaves the daemon's default.
   */
  DockerSettings settings(String runtime) {
    return settings().withRuntimes(runtime.equals(DEFAULT_RUNTIME) ? null : runtime, null);
  }

  DockerExecutor executor(DockerSettings settings) {
    return new DockerExecutor(settings, runnerDid, work, Clock.systemUTC());
  }

  RunSpec spec(ExecStep... steps) {
    return RunSpec.of(repo.mirror, repo.commit, List.of(steps));
  }

  static ExecStep step(String name, String script) {
    return ExecStep.run(name, script, Duration.ZERO);
  }

  /** This runner's containers, running or not. */
  List<Container> containers() {
    return docker
        .listContainersCmd()
        .withShowAll(true)
        .withLabelFilter(Map.of(Labels.RUNNER, runnerDid))
        .exec();
  }

  /**
   * Waits for a container of this runner not seen by an earlier call, and inspects it. A run's
   * container may still be listed for a moment after the run returns, while the daemon removes it:
   * that one is passed over, so a second run in one test is not confused with the first.
   */
  InspectContainerResponse awaitContainer() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      for (Container c : containers()) {
        if (!inspected.contains(c.getId())) {
          try {
            InspectContainerResponse found = docker.inspectContainerCmd(c.getId()).exec();
            inspected.add(c.getId());
            return found;
          } catch (com.github.dockerjava.api.exception.NotFoundException gone) {
            // removed between the list and the inspect: an earlier run's, going
          }
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no container of " + runnerDid + " appeared in 60 s");
  }

  /**
   * Lets a step waiting on {@code /work/<name>} go: the file is made in the one run's checkout, as
   * the host sees it.
   */
  void release(String name) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      try (Stream<Path> runs = Files.list(work)) {
        List<Path> checkouts =
            runs.map(r -> r.resolve("checkout")).filter(Files::isDirectory).toList();
        if (!checkouts.isEmpty()) {
          for (Path c : checkouts) {
            Files.writeString(c.resolve(name), "go\n");
          }
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no run's checkout appeared under " + work);
  }

  /** A script that waits until {@link #release} makes {@code /work/<name>}. */
  static String waitFor(String name) {
    return "while [ ! -f /work/" + name + " ]; do sleep 0.05; done";
  }

  @Override
  public void close() throws IOException {
    for (Container c : containers()) {
      docker.removeContainerCmd(c.getId()).withForce(true).exec();
    }
    docker.close();
    try (Stream<Path> all = Files.walk(repo.root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
