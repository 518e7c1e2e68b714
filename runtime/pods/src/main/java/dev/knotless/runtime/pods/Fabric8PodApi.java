package dev.knotless.runtime.pods;

import dev.knotless.runner.exec.pod.ImagePulls;
import dev.knotless.runner.exec.pod.PodApi;
import dev.knotless.runner.exec.pod.PodState;
import dev.knotless.runner.exec.pod.RunPod;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The pod executor's {@link PodApi} on the Fabric8 client, in one namespace: it turns {@link
 * RunPod} into a Pod ({@link RunPods}), and pod states into {@link PodState} for the library to
 * judge. Pods are followed by a watch ({@link PodWatch}), not polled: waiting for a pod to run,
 * hearing that one was lost, and the pods a gauge counts all come from it; {@link #list} still asks
 * the API server, for a sweep and for adoption, and {@link #events} once for a pod that runs.
 * Thread-safe, as the client is.
 */
public final class Fabric8PodApi implements PodApi, AutoCloseable {

  /**
   * The longest wait for a watch event while the runner waits for a pod to run: a pull error's
   * grace or the pending limit can pass with no event.
   */
  static final Duration RECHECK = Duration.ofSeconds(1);

  private final KubernetesClient client;
  private final String namespace;
  private final Duration pullGrace;
  private final Duration pendingLimit;
  private final PodWatch watch;

  /**
   * @param client a client allowed to create, get, list, delete and exec into pods of {@code
   *     namespace}, and nothing else
   * @param pullGrace how long an image pull may keep failing before the run fails
   */
  public Fabric8PodApi(KubernetesClient client, String namespace, Duration pullGrace) {
    this(client, namespace, pullGrace, Duration.ZERO);
  }

  /**
   * As {@link #Fabric8PodApi(KubernetesClient, String, Duration)}, failing a pod still pending
   * after {@code pendingLimit} (zero: only the step limit bounds it).
   */
  public Fabric8PodApi(
      KubernetesClient client, String namespace, Duration pullGrace, Duration pendingLimit) {
    this(client, namespace, pullGrace, pendingLimit, PodWatch.RESYNC);
  }

  /**
   * As above, the watch going over every pod again each {@code resync} (zero: never), events or
   * not.
   */
  public Fabric8PodApi(
      KubernetesClient client,
      String namespace,
      Duration pullGrace,
      Duration pendingLimit,
      Duration resync) {
    this.client = client;
    this.namespace = namespace;
    this.pullGrace = pullGrace;
    this.pendingLimit = pendingLimit;
    this.watch = new PodWatch(client, namespace, resync);
  }

  @Override
  public void create(RunPod pod) throws IOException {
    try {
      client.pods().inNamespace(namespace).resource(RunPods.toPod(pod)).create();
    } catch (KubernetesClientException e) {
      throw new IOException("the API server refused pod " + pod.name() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void awaitRunning(String name, Duration limit)
      throws NotRunning, IOException, InterruptedException {
    boolean pending = !pendingLimit.isZero() && pendingLimit.compareTo(limit) < 0;
    Duration bound = pending ? pendingLimit : limit;
    long deadline = System.nanoTime() + bound.toNanos();
    long pullFailingSince = -1;
    String image = "";
    while (true) {
      long seen;
      Pod pod;
      try {
        seen = watch.version();
        pod = watch.get(name);
        if (pod == null) {
          // Made a moment ago, the watch may not have it yet: the API server decides.
          pod = client.pods().inNamespace(namespace).withName(name).get();
        }
      } catch (KubernetesClientException e) {
        throw new IOException("could not read pod " + name + ": " + e.getMessage(), e);
      }
      PodState state = state(pod);
      if (pod != null) {
        image = pod.getSpec().getContainers().get(0).getImage();
      }
      long now = System.nanoTime();
      if (state.pullFailing()) {
        pullFailingSince = pullFailingSince < 0 ? now : pullFailingSince;
      } else {
        pullFailingSince = -1;
      }
      Duration failing = Duration.ofNanos(pullFailingSince < 0 ? 0 : now - pullFailingSince);
      PodState.Verdict verdict = state.verdict(name, image, failing, pullGrace);
      if (verdict instanceof PodState.Verdict.Running) {
        return;
      }
      if (verdict instanceof PodState.Verdict.Failed f) {
        throw new NotRunning(f.message(), state.pullFailing());
      }
      if (now > deadline) {
        throw new NotRunning(
            "pod "
                + name
                + " did not run within "
                + bound.toSeconds()
                + (pending ? "s, the pending limit" : "s, the step limit")
                + (state.waitingReason() == null ? "" : " (" + state.waitingReason() + ")"));
      }
      long left = deadline - now;
      watch.awaitChange(seen, Duration.ofNanos(Math.min(RECHECK.toNanos(), Math.max(0, left))));
    }
  }

  static PodState state(Pod pod) {
    if (pod == null) {
      return new PodState(false, null, null, null);
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    String reason = null;
    String message = null;
    if (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null) {
      for (ContainerStatus cs : pod.getStatus().getContainerStatuses()) {
        if (cs.getState() != null && cs.getState().getWaiting() != null) {
          reason = cs.getState().getWaiting().getReason();
          message = cs.getState().getWaiting().getMessage();
        }
      }
    }
    return new PodState(true, phase, reason, message);
  }

  @Override
  public Exec exec(String name, List<String> command) throws IOException {
    try {
      ExecWatch watch =
          client
              .pods()
              .inNamespace(namespace)
              .withName(name)
              .inContainer(RunPod.CONTAINER)
              .redirectingInput()
              .redirectingOutput()
              .writingError(OutputStream.nullOutputStream())
              .exec(command.toArray(String[]::new));
      return new WatchExec(watch);
    } catch (KubernetesClientException e) {
      throw new IOException("could not exec in pod " + name + ": " + e.getMessage(), e);
    }
  }

  /**
   * The pod's events, asked for by {@code involvedObject.name} and kept only when they name this
   * pod (kind, name, and uid when the watch knows it): a server that ignores the field selector, or
   * a pod of the same name made before, gives none that are not its.
   */
  @Override
  public List<ImagePulls.Event> events(String name) throws IOException {
    Pod pod = watch.get(name);
    String uid = pod == null ? null : pod.getMetadata().getUid();
    try {
      return client
          .v1()
          .events()
          .inNamespace(namespace)
          .withField("involvedObject.name", name)
          .list()
          .getItems()
          .stream()
          .filter(e -> about(e.getInvolvedObject(), name, uid))
          .map(Fabric8PodApi::event)
          .toList();
    } catch (KubernetesClientException e) {
      throw new IOException("could not list the events of pod " + name + ": " + e.getMessage(), e);
    }
  }

  private static boolean about(ObjectReference o, String name, String uid) {
    return o != null
        && "Pod".equals(o.getKind())
        && name.equals(o.getName())
        && (uid == null || o.getUid() == null || uid.equals(o.getUid()));
  }

  private static ImagePulls.Event event(Event e) {
    String at =
        e.getLastTimestamp() != null
            ? e.getLastTimestamp()
            : e.getEventTime() != null && e.getEventTime().getTime() != null
                ? e.getEventTime().getTime()
                : e.getFirstTimestamp();
    Instant when = null;
    if (at != null) {
      try {
        when = Instant.parse(at);
      } catch (DateTimeParseException unreadable) {
        // A time that is not RFC 3339 gives no time; the message may still give the pull's.
      }
    }
    return new ImagePulls.Event(e.getReason(), e.getMessage(), when);
  }

  @Override
  public void delete(String name) throws IOException {
    try {
      client.pods().inNamespace(namespace).withName(name).withGracePeriod(0).delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw new IOException("could not delete pod " + name + ": " + e.getMessage(), e);
      }
    }
  }

  @Override
  public List<Listed> list(String runnerLabel) throws IOException {
    try {
      return client
          .pods()
          .inNamespace(namespace)
          .withLabel(RunPod.RUNNER_LABEL, runnerLabel)
          .list()
          .getItems()
          .stream()
          .map(Fabric8PodApi::listed)
          .toList();
    } catch (KubernetesClientException e) {
      throw new IOException("could not list the runner's pods: " + e.getMessage(), e);
    }
  }

  @Override
  public List<Listed> watched(String runnerLabel) throws IOException {
    try {
      return watch.all().stream()
          .filter(p -> runnerLabel.equals(labels(p).get(RunPod.RUNNER_LABEL)))
          .map(Fabric8PodApi::listed)
          .toList();
    } catch (KubernetesClientException e) {
      throw new IOException("could not watch the runner's pods: " + e.getMessage(), e);
    }
  }

  @Override
  public Watching whenLost(String name, java.util.function.Consumer<String> lost) {
    return watch.whenLost(name, lost);
  }

  /** Stops the watch. The client stays open: it is the caller's. */
  @Override
  public void close() {
    watch.close();
  }

  private static Map<String, String> labels(Pod p) {
    return p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
  }

  private static Listed listed(Pod p) {
    Map<String, String> a =
        p.getMetadata().getAnnotations() == null ? Map.of() : p.getMetadata().getAnnotations();
    return new Listed(
        p.getMetadata().getName(),
        a.get(RunPod.RUNNER_ANNOTATION),
        a.get(RunPod.RUN_KEY_ANNOTATION),
        p.getStatus() == null ? null : p.getStatus().getPhase());
  }

  /** One Fabric8 exec as the library's {@link PodApi.Exec}. */
  private record WatchExec(ExecWatch watch) implements Exec {
    @Override
    public OutputStream stdin() {
      return watch.getInput();
    }

    @Override
    public InputStream stdout() {
      return watch.getOutput();
    }

    @Override
    public int exitCode(Duration limit) throws IOException, InterruptedException {
      try {
        Integer code = watch.exitCode().get(Math.max(1, limit.toMillis()), TimeUnit.MILLISECONDS);
        if (code == null || code < 0) {
          throw new IOException("the exec ended without an exit status");
        }
        return code;
      } catch (ExecutionException | TimeoutException e) {
        throw new IOException("the exec ended without an exit status: " + e, e);
      }
    }

    @Override
    public void close() {
      watch.close();
    }
  }
}
