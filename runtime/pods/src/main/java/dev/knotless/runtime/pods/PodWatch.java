package dev.knotless.runtime.pods;

import dev.knotless.runner.exec.pod.PodApi;
import dev.knotless.runner.exec.pod.PodState;
import dev.knotless.runner.exec.pod.RunPod;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runners' pods of one namespace (those carrying {@link RunPod#RUNNER_LABEL}) as the API
 * server's watch tells them: a Fabric8 informer, started on first use (its first list is waited
 * for), that keeps them in memory, relists by itself when its watch breaks, and goes over every pod
 * again every {@code resync} (30 s unless the operator sets another) as a safety net for a change
 * it handled badly. A phase change, a deletion or a node lost reaches {@link #whenLost} and {@link
 * #awaitChange} as the event comes, not at the next poll. Thread-safe.
 */
final class PodWatch implements AutoCloseable {

  /** How often every pod the watch holds is looked at again, events or not, by default. */
  static final Duration RESYNC = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(PodWatch.class);

  private final KubernetesClient client;
  private final String namespace;
  private final Duration resync;
  private final Object changed = new Object();
  private final Map<String, List<Lost>> lost = new ConcurrentHashMap<>();
  private long version;
  private SharedIndexInformer<Pod> informer;

  /**
   * @param resync how often every pod is looked at again, events or not; zero never
   */
  PodWatch(KubernetesClient client, String namespace, Duration resync) {
    if (resync.isNegative()) {
      throw new IllegalArgumentException("the watch's resync is negative: " + resync);
    }
    this.client = client;
    this.namespace = namespace;
    this.resync = resync;
  }

  private synchronized SharedIndexInformer<Pod> informer() {
    if (informer == null) {
      informer =
          client
              .pods()
              .inNamespace(namespace)
              .withLabel(RunPod.RUNNER_LABEL)
              .inform(new Events(), resync.toMillis());
    }
    return informer;
  }

  /** Pod {@code name} as the watch last saw it; null if it has not seen it, or it is gone. */
  Pod get(String name) {
    return informer().getStore().getByKey(namespace + "/" + name);
  }

  /** Every pod the watch holds. */
  List<Pod> all() {
    return informer().getStore().list();
  }

  /** A number that changes with every event; read it before looking, to {@link #awaitChange}. */
  long version() {
    informer();
    synchronized (changed) {
      return version;
    }
  }

  /** Waits up to {@code limit} for an event after {@code seen}, a {@link #version}. */
  void awaitChange(long seen, Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    synchronized (changed) {
      while (version == seen) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        changed.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  /** As {@link PodApi#whenLost}. */
  PodApi.Watching whenLost(String name, Consumer<String> lostCall) {
    Lost l = new Lost(lostCall);
    lost.computeIfAbsent(name, k -> new CopyOnWriteArrayList<>()).add(l);
    Pod now = get(name);
    if (now != null) {
      // It may have been lost before anyone asked.
      seen(now, false);
    }
    return () -> {
      l.fired.set(true);
      List<Lost> all = lost.get(name);
      if (all != null) {
        all.remove(l);
      }
    };
  }

  private void seen(Pod pod, boolean gone) {
    synchronized (changed) {
      version++;
      changed.notifyAll();
    }
    String name = pod.getMetadata().getName();
    List<Lost> waiting = lost.get(name);
    if (waiting == null || waiting.isEmpty()) {
      return;
    }
    var status = pod.getStatus();
    String why =
        PodState.lost(
            name,
            !gone,
            status == null ? null : status.getPhase(),
            pod.getMetadata().getDeletionTimestamp() != null,
            status == null ? null : status.getReason());
    if (why == null) {
      return;
    }
    for (Lost l : waiting) {
      if (l.fired.compareAndSet(false, true)) {
        l.call.accept(why);
      }
    }
    lost.remove(name, waiting);
  }

  @Override
  public synchronized void close() {
    if (informer != null) {
      informer.stop();
      informer = null;
    }
  }

  /** One {@link #whenLost} registration, called at most once. */
  private record Lost(Consumer<String> call, AtomicBoolean fired) {
    Lost(Consumer<String> call) {
      this(call, new AtomicBoolean());
    }
  }

  /** The informer's events, each a change to look at. */
  private final class Events implements ResourceEventHandler<Pod> {
    @Override
    public void onAdd(Pod pod) {
      seen(pod, false);
    }

    @Override
    public void onUpdate(Pod before, Pod pod) {
      seen(pod, false);
    }

    @Override
    public void onDelete(Pod pod, boolean finalStateUnknown) {
      LOG.debug("pod {} deleted", pod.getMetadata().getName());
      seen(pod, true);
    }
  }
}
