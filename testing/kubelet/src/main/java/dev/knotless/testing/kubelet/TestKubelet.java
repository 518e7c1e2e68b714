package dev.knotless.testing.kubelet;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import dev.knotless.testing.LocalDocker;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.mockwebserver.http.MockResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kubelet for tests: it watches pods on a {@link KubeApiServer}, runs each pod's one container as
 * a real docker container on the harness's daemon ({@link LocalDocker}), moves the pod to Running
 * (or leaves it Pending with the reason a real kubelet gives) and serves the exec subresource by
 * docker execs. A deleted pod's container is removed at once.
 *
 * <p>Images are had as a kubelet has them ({@link ImagePuller}): by the container's pull policy, a
 * real pull from a registry on 127.0.0.1 recorded as {@code Pulling} and {@code Pulled} events, and
 * a failed pull {@code ErrImagePull}, then {@code ImagePullBackOff} while it waits to try again
 * with a kubelet's back-off (10 s, doubling, at most 300 s).
 *
 * <p>Where it differs from a real kubelet (docs/executor.md lists it too): it pulls only from
 * registries on the loopback (any other is a failed pull, at once, saying so); a RuntimeClass maps
 * to a docker runtime by the map it is given (unknown ones fail the pod, where the API server's
 * admission would refuse it); emptyDir volumes are anonymous docker volumes; the pids limit is its
 * own setting (a kubelet's is node-wide configuration, not in the pod spec); ephemeral-storage
 * limits are not enforced; {@code shareProcessNamespace} gives docker's init as pid 1 rather than
 * the pause process; there is no pod network policy, only docker's bridge. The exec protocol is
 * v4.channel.k8s.io, whose stdin cannot be half-closed, as the real one's cannot.
 */
public final class TestKubelet implements AutoCloseable {

  /** The label on every container it makes: its id, so its close removes exactly them. */
  static final String LABEL = "dev.knotless.test.kubelet";

  private static final Logger LOG = LoggerFactory.getLogger(TestKubelet.class);

  private final KubernetesClient client;
  private final DockerClient docker;
  private final Map<String, String> runtimes;
  private final long pidsLimit;
  private final String id = "kubelet-" + Long.toHexString(System.nanoTime());
  private final Map<String, String> containers = new ConcurrentHashMap<>();
  private final Map<String, java.util.Set<ExecSession>> sessions = new ConcurrentHashMap<>();
  private final ExecutorService work = Executors.newFixedThreadPool(4);
  private final KubeletTimes times = new KubeletTimes();
  private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
  private final Map<String, Integer> failedPulls = new ConcurrentHashMap<>();
  private final ImagePuller puller;
  private Watch watch;

  private TestKubelet(
      KubernetesClient client, DockerClient docker, Map<String, String> runtimes, long pidsLimit) {
    this.client = client;
    this.docker = docker;
    this.runtimes = Map.copyOf(runtimes);
    this.pidsLimit = pidsLimit;
    this.puller = new ImagePuller(docker, client, new PodEvents(client));
  }

  /**
   * Starts a kubelet for {@code api}: {@code runtimes} maps each RuntimeClass name to a runtime the
   * harness's daemon registers ({@link LocalDocker#SANDBOX_RUNTIME}, {@link
   * LocalDocker#TRUSTED_RUNTIME}); {@code pidsLimit} is every container's (0 for none).
   */
  public static TestKubelet start(KubeApiServer api, Map<String, String> runtimes, long pidsLimit) {
    LocalDocker.ensure();
    return attach(api, runtimes, pidsLimit);
  }

  /**
   * Starts a kubelet for {@code api} on whatever daemon answers, with the images made but no
   * runtime name required: what a tour needs beside a daemon the user already runs. {@code
   * runtimes} must name runtimes that daemon has.
   */
  public static TestKubelet startOnAnyDaemon(
      KubeApiServer api, Map<String, String> runtimes, long pidsLimit) {
    LocalDocker.ensureImages();
    return attach(api, runtimes, pidsLimit);
  }

  private static TestKubelet attach(
      KubeApiServer api, Map<String, String> runtimes, long pidsLimit) {
    var config = DefaultDockerClientConfig.createDefaultConfigBuilder().build();
    var http = new ApacheDockerHttpClient.Builder().dockerHost(config.getDockerHost()).build();
    DockerClient docker = DockerClientImpl.getInstance(config, http);
    TestKubelet k =
        new TestKubelet(api.client("default", "kubelet-token"), docker, runtimes, pidsLimit);
    api.attach(k);
    k.watch = k.client.pods().inAnyNamespace().watch(k.new PodWatcher());
    return k;
  }

  /** The docker container running pod {@code namespace/name}, or null. */
  public String containerOf(String namespace, String name) {
    return containers.get(namespace + "/" + name);
  }

  /** When this kubelet started each pod and served each exec, for a benchmark. */
  public KubeletTimes times() {
    return times;
  }

  /** The daemon the pods run on, for a test to look at what it made. */
  public DockerClient docker() {
    return docker;
  }

  /**
   * Kills pod {@code namespace/name}'s container as a node lost would: its processes end, the
   * connections of its execs drop, the pod object stays as it was.
   */
  public void loseNode(String namespace, String name) {
    String c = containers.get(namespace + "/" + name);
    if (c != null) {
      docker.killContainerCmd(c).withSignal("KILL").exec();
      for (ExecSession s : List.copyOf(sessions.getOrDefault(c, java.util.Set.of()))) {
        s.drop();
      }
    }
  }

  /**
   * Cuts pod {@code namespace/name}'s node off, as a network partition would: its processes freeze
   * where they are (the container is paused), so execs already open neither end nor print, and the
   * API server marks the pod as the node controller does when a node stops answering, phase {@code
   * Unknown} with reason {@code NodeLost}. Only a watch on the pod hears of it.
   */
  public void partitionNode(String namespace, String name) {
    String c = containers.get(namespace + "/" + name);
    if (c == null) {
      throw new IllegalStateException("pod " + namespace + "/" + name + " has no container");
    }
    docker.pauseContainerCmd(c).exec();
    Pod pod = client.pods().inNamespace(namespace).withName(name).get();
    pod.getStatus().setPhase("Unknown");
    pod.getStatus().setReason("NodeLost");
    pod.getStatus().setMessage("Node is not ready (the test kubelet's partition)");
    client.pods().inNamespace(namespace).resource(pod).updateStatus();
  }

  MockResponse exec(String namespace, String name, String query, long requested) {
    String c = containers.get(namespace + "/" + name);
    if (c == null) {
      return new MockResponse()
          .setResponseCode(404)
          .setBody(
              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                  + "\"reason\":\"NotFound\",\"code\":404,\"message\":\"pod "
                  + name
                  + " has no running container\"}");
    }
    java.util.Set<ExecSession> open =
        sessions.computeIfAbsent(c, k -> ConcurrentHashMap.newKeySet());
    ExecSession[] session = new ExecSession[1];
    session[0] =
        new ExecSession(docker, c, query, () -> open.remove(session[0]), times, name, requested);
    open.add(session[0]);
    return new MockResponse().withWebSocketUpgrade(session[0]);
  }

  private void run(Pod pod, long seen) {
    String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    ImagePuller.Outcome image = puller.ensure(pod);
    if (!image.ready()) {
      setStatus(pod, "Pending", image.waitingReason(), image.message());
      if (image.retry()) {
        backOff(pod, seen, image.message());
      }
      return;
    }
    failedPulls.remove(key);
    long making = System.nanoTime();
    PodContainers.Made made = PodContainers.create(docker, pod, runtimes, pidsLimit, id);
    long runtime = System.nanoTime() - making;
    if (made.waitingReason() != null) {
      setStatus(pod, "Pending", made.waitingReason(), made.message());
      return;
    }
    containers.put(key, made.containerId());
    if (client
            .pods()
            .inNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName())
            .get()
        == null) {
      // Deleted while it was being made.
      remove(key);
      return;
    }
    long starting = System.nanoTime();
    docker.startContainerCmd(made.containerId()).exec();
    runtime += System.nanoTime() - starting;
    setStatus(pod, "Running", null, null);
    times.pod(
        new KubeletTimes.PodStart(pod.getMetadata().getName(), seen, runtime, System.nanoTime()));
  }

  /**
   * After a failed pull, as a kubelet: the pod's next sync (a second on) finds the pull in back-off
   * and says {@code ImagePullBackOff}; once the back-off passes (10 s, doubling each failure, at
   * most 300 s) the pull is tried again. A pod deleted meanwhile is left alone.
   */
  private void backOff(Pod pod, long seen, String error) {
    String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    int failures = failedPulls.merge(key, 1, Integer::sum);
    long wait = Math.min(300, 10L << Math.min(failures - 1, 5));
    try {
      later.schedule(
          () -> {
            if (exists(pod)) {
              setStatus(pod, "Pending", "ImagePullBackOff", puller.backOff(pod, error));
            }
          },
          1,
          TimeUnit.SECONDS);
      later.schedule(
          () -> {
            if (exists(pod)) {
              work.submit(() -> runOrFail(pod, seen));
            } else {
              failedPulls.remove(key);
            }
          },
          wait,
          TimeUnit.SECONDS);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      // The kubelet is closing: no pod is synced again.
    }
  }

  private boolean exists(Pod pod) {
    try {
      return client
              .pods()
              .inNamespace(pod.getMetadata().getNamespace())
              .withName(pod.getMetadata().getName())
              .get()
          != null;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private void runOrFail(Pod pod, long seen) {
    try {
      run(pod, seen);
    } catch (RuntimeException e) {
      LOG.warn(
          "pod {}/{} could not run: {}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          e.toString());
      setStatus(pod, "Failed", "CreateContainerError", e.getMessage());
    }
  }

  private void setStatus(Pod pod, String phase, String waitingReason, String message) {
    var state = new ContainerStateBuilder();
    if (waitingReason == null) {
      state.withNewRunning().withStartedAt(Instant.now().toString()).endRunning();
    } else {
      state.withNewWaiting().withReason(waitingReason).withMessage(message).endWaiting();
    }
    // The pod as the API server holds it now: a status written before (a failed pull's) moved its
    // resource version on.
    Pod current;
    try {
      current =
          client
              .pods()
              .inNamespace(pod.getMetadata().getNamespace())
              .withName(pod.getMetadata().getName())
              .get();
    } catch (RuntimeException e) {
      current = null;
    }
    Pod target = current == null ? pod : current;
    target.setStatus(
        new PodStatusBuilder()
            .withPhase(phase)
            .withStartTime(Instant.now().toString())
            .withConditions(conditions(waitingReason == null))
            .withContainerStatuses(
                new ContainerStatusBuilder()
                    .withName(pod.getSpec().getContainers().get(0).getName())
                    .withImage(pod.getSpec().getContainers().get(0).getImage())
                    .withReady(waitingReason == null)
                    .withState(state.build())
                    .build())
            .build());
    try {
      client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(target).updateStatus();
    } catch (RuntimeException e) {
      LOG.debug("status of pod {} not set: {}", pod.getMetadata().getName(), e.toString());
    }
  }

  /**
   * The conditions a kubelet sets on a pod with no readiness probe: scheduled, initialized (it has
   * no init container), and its containers and itself ready once its container runs.
   */
  private static List<PodCondition> conditions(boolean running) {
    String now = Instant.now().toString();
    String ready = running ? "True" : "False";
    return List.of(
        condition("PodScheduled", "True", now),
        condition("Initialized", "True", now),
        condition("ContainersReady", ready, now),
        condition("Ready", ready, now));
  }

  private static PodCondition condition(String type, String status, String now) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withLastTransitionTime(now)
        .build();
  }

  private void remove(String key) {
    String c = containers.remove(key);
    if (c != null) {
      try {
        // A partitioned pod's container is paused.
        docker.unpauseContainerCmd(c).exec();
      } catch (RuntimeException notPaused) {
        // Running or gone: removed below either way.
      }
      try {
        docker.removeContainerCmd(c).withForce(true).withRemoveVolumes(true).exec();
      } catch (NotFoundException | ConflictException gone) {
        // Removed already, or being removed.
      }
    }
  }

  @Override
  public void close() throws Exception {
    if (watch != null) {
      watch.close();
    }
    // Pods being made or removed finish first, so nothing is made after the sweep below.
    later.shutdownNow();
    work.shutdown();
    work.awaitTermination(2, TimeUnit.MINUTES);
    List<Container> mine =
        docker.listContainersCmd().withShowAll(true).withLabelFilter(Map.of(LABEL, id)).exec();
    for (Container c : mine) {
      try {
        docker.unpauseContainerCmd(c.getId()).exec();
      } catch (RuntimeException notPaused) {
        // Removed below either way.
      }
      try {
        docker.removeContainerCmd(c.getId()).withForce(true).withRemoveVolumes(true).exec();
      } catch (NotFoundException | ConflictException gone) {
        // Removed, or being removed, by the deletion of its pod.
      }
    }
    client.close();
    docker.close();
  }

  /** Runs what the API server adds and removes what it deletes. */
  private final class PodWatcher implements Watcher<Pod> {
    @Override
    public void eventReceived(Action action, Pod pod) {
      String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
      if (action == Action.ADDED) {
        long seen = System.nanoTime();
        work.submit(() -> runOrFail(pod, seen));
      } else if (action == Action.DELETED) {
        work.submit(() -> remove(key));
      }
    }

    @Override
    public void onClose(WatcherException cause) {
      LOG.warn("the test kubelet's watch closed: {}", String.valueOf(cause));
    }
  }
}
