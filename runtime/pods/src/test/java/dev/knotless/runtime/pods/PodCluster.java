package dev.knotless.runtime.pods;

import dev.knotless.runner.exec.AfterSteps;
import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.DiskFloor;
import dev.knotless.runner.exec.pod.PodExecutor;
import dev.knotless.runner.exec.pod.PodSettings;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.TestKubelet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * A cluster for the pod executor's tests: the mock API server, the test kubelet running pods on the
 * harness's docker daemon, and a pod executor whose client holds a bearer token of its own (the
 * runner's credential, which no step may see). Closing it removes every container it ran.
 */
public final class PodCluster implements Executor, AutoCloseable {

  /** The namespace runs go in. */
  public static final String NAMESPACE = "runs";

  /** The RuntimeClass of others' code, mapped to the daemon's gVisor (runsc). */
  public static final String SANDBOX = "gvisor";

  /** The RuntimeClass of trusted code. */
  public static final String TRUSTED = "trusted";

  public final KubeApiServer api;
  public final TestKubelet kubelet;
  public final KubernetesClient client;
  public final String token = "runner-credential-" + Long.toHexString(System.nanoTime());
  public final String runnerDid = "did:plc:pods" + Long.toHexString(System.nanoTime());
  private final PodExecutor executor;

  public PodCluster(Path work, PodSettings settings) {
    api = KubeApiServer.start();
    kubelet =
        TestKubelet.start(
            api,
            Map.of(SANDBOX, LocalDocker.SANDBOX_RUNTIME, TRUSTED, LocalDocker.TRUSTED_RUNTIME),
            0);
    client = api.client(NAMESPACE, token);
    executor =
        new PodExecutor(
            new Fabric8PodApi(client, NAMESPACE, Duration.ZERO),
            settings,
            runnerDid,
            work,
            Clock.systemUTC());
  }

  /** The default settings of these tests: the busybox image, the sandbox runtime. */
  public static PodSettings settings() {
    return PodSettings.defaults().withImage(LocalDocker.BUSYBOX).withRuntimes(SANDBOX, TRUSTED);
  }

  @Override
  public RunResult run(
      RunSpec spec, RunCancellation cancellation, RunListener listener, AfterSteps afterSteps) {
    return executor.run(spec, cancellation, listener, afterSteps);
  }

  /** The executor itself, for what only the pod executor does (adoption). */
  public PodExecutor executor() {
    return executor;
  }

  /**
   * Another pod executor of the same runner, as a second scheduler would have, with a client of its
   * own; closing the client cuts it off the API server as if its process had died.
   */
  public PodExecutor another(KubernetesClient client, PodSettings settings, Path work) {
    return new PodExecutor(
        new Fabric8PodApi(client, NAMESPACE, Duration.ZERO),
        settings,
        runnerDid,
        work,
        Clock.systemUTC());
  }

  /**
   * A pod executor of this runner keeping its runs' caches in {@code caches}, held by {@code floor}
   * (null for none), as a scheduler with a cache volume does.
   */
  public PodExecutor cached(CacheStore caches, DiskFloor floor, Path work) {
    return new PodExecutor(
        new Fabric8PodApi(client, NAMESPACE, Duration.ZERO),
        settings(),
        runnerDid,
        work,
        Clock.systemUTC(),
        caches,
        floor);
  }

  /**
   * A pod executor of this runner that waits {@code pullGrace} on an image the kubelet cannot pull
   * before it fails the run, so a run can be held while its pod is still pending.
   */
  public PodExecutor patient(Duration pullGrace, Path work) {
    return new PodExecutor(
        new Fabric8PodApi(client, NAMESPACE, pullGrace),
        settings(),
        runnerDid,
        work,
        Clock.systemUTC());
  }

  @Override
  public void removeLeftovers() {
    executor.removeLeftovers();
  }

  @Override
  public String name() {
    return executor.name();
  }

  @Override
  public void close() throws Exception {
    try {
      kubelet.close();
    } finally {
      client.close();
      api.close();
    }
  }
}
