package dev.knotless.testing.distributed;

import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.TestKubelet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where {@link LocalDistributed}'s schedulers run their pods: the Fabric8 mock API server and the
 * test kubelet, which runs each pod as a container of the local docker daemon, RuntimeClass {@link
 * #SANDBOX_CLASS} under {@link LocalDocker#SANDBOX_RUNTIME}. Closing it removes every container it
 * made.
 */
public final class RunPods implements AutoCloseable {
  /** The namespace run pods go in. */
  public static final String NAMESPACE = "runs";

  /** The RuntimeClass others' code runs under. */
  public static final String SANDBOX_CLASS = "gvisor";

  private final KubeApiServer api;
  private final TestKubelet kubelet;

  private RunPods(KubeApiServer api, TestKubelet kubelet) {
    this.api = api;
    this.kubelet = kubelet;
  }

  /** Starts the API server and the kubelet; the docker daemon must answer. */
  static RunPods start() {
    LocalDocker.ensure();
    KubeApiServer api = KubeApiServer.start();
    try {
      return new RunPods(
          api, TestKubelet.start(api, Map.of(SANDBOX_CLASS, LocalDocker.SANDBOX_RUNTIME), 0));
    } catch (RuntimeException e) {
      api.close();
      throw e;
    }
  }

  /** The API server's URL, for the schedulers' {@code api-server}. */
  public String url() {
    return api.url();
  }

  /** How many run pods the API server was asked to make so far. */
  public long made() {
    return api.requests().stream()
        .filter(r -> r.startsWith("POST /api/v1/namespaces/" + NAMESPACE + "/pods"))
        .filter(r -> !r.contains("/exec"))
        .count();
  }

  /** How many run pods the kubelet has running now (phase {@code Running}). */
  public long running() {
    try (KubernetesClient c = api.client(NAMESPACE, "harness")) {
      return c.pods().list().getItems().stream()
          .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
          .count();
    }
  }

  /**
   * The run pods in phase {@code Running} now, by name, each to its {@code annotation}'s value
   * (empty when it has none).
   */
  public Map<String, String> runningWith(String annotation) {
    try (KubernetesClient c = api.client(NAMESPACE, "harness")) {
      return c.pods().list().getItems().stream()
          .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
          .collect(
              Collectors.toUnmodifiableMap(
                  p -> p.getMetadata().getName(),
                  p ->
                      p.getMetadata().getAnnotations() == null
                          ? ""
                          : p.getMetadata().getAnnotations().getOrDefault(annotation, "")));
    }
  }

  /** Whether run pod {@code name} is still in phase {@code Running}. */
  public boolean running(String name) {
    try (KubernetesClient c = api.client(NAMESPACE, "harness")) {
      var pod = c.pods().withName(name).get();
      return pod != null && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
    }
  }

  /**
   * Runs {@code command} in the run container of pod {@code pod} through {@code client} and gives
   * its output, waiting a minute at most.
   */
  public static String exec(KubernetesClient client, String pod, String... command)
      throws Exception {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    try (var exec =
        client
            .pods()
            .withName(pod)
            .inContainer("run") // RunPod.CONTAINER, of a module this one does not use
            .writingOutput(out)
            .exec(command)) {
      exec.exitCode().get(1, java.util.concurrent.TimeUnit.MINUTES);
    }
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** A client of the runs' namespace, for a test to look into a pod; the caller closes it. */
  public KubernetesClient client() {
    return api.client(NAMESPACE, "harness");
  }

  public TestKubelet kubelet() {
    return kubelet;
  }

  @Override
  public void close() {
    try {
      kubelet.close();
    } catch (Exception e) {
      System.err.println("the test kubelet did not close cleanly: " + e);
    }
    api.close();
  }
}
