package dev.knotless.runner.exec.pod;

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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pod executor: each run in a Kubernetes pod of its own ({@link RunPod}), its steps started in
 * it by the in-pod {@link Launcher}, every exchange through the API server ({@link PodApi}). The
 * checkout is made on the runner's side, as for every executor, and copied into the pod; the pod is
 * deleted once the last step's output was read, before the caller files anything.
 *
 * <p>Every pod carries the runner's DID as a label and an annotation; {@link #removeLeftovers}
 * deletes those whose annotation is exactly this runner's DID and that belong to no live run of
 * this executor. Thread-safe: one executor runs any number of runs at once, each on its caller's
 * thread.
 */
public final class PodExecutor implements Executor {

  private static final Logger LOG = LoggerFactory.getLogger(PodExecutor.class);

  private final PodApi api;
  private final PodSettings settings;
  private final String runnerDid;
  private final RunDriver driver;
  private final CacheStore caches;
  private final DiskFloor floor;
  private final Live live = new Live();
  private final Map<String, String> adoptable = new ConcurrentHashMap<>();
  // Pods adopted by a run going now: on the node, their volumes are a stopped run's overlays.
  private final Set<String> adopting = ConcurrentHashMap.newKeySet();
  private volatile PodObserver observer = PodObserver.NONE;
  private volatile boolean cachesOnNode;
  private volatile String cacheNode;

  /**
   * @param api the API server, bound to the namespace runs go in
   * @param settings what runs' pods may take
   * @param runnerDid the runner's account, on every pod as a label
   * @param workRoot {@code --work}: runs' directories (checkouts before they are copied in) go here
   */
  public PodExecutor(
      PodApi api, PodSettings settings, String runnerDid, Path workRoot, Clock clock) {
    this(api, settings, runnerDid, workRoot, clock, null, null);
  }

  /**
   * As above, the runs' caches kept in {@code caches} on this runner's disk (null for none: cache
   * paths are then ignored), each run first held by {@code floor} (null for none) until that disk
   * has room. The bases reach a pod as its checkout does ({@link PodCaches}).
   */
  public PodExecutor(
      PodApi api,
      PodSettings settings,
      String runnerDid,
      Path workRoot,
      Clock clock,
      CacheStore caches,
      DiskFloor floor) {
    this.caches = caches;
    this.floor = floor;
    this.api = Objects.requireNonNull(api, "pod API");
    this.settings = Objects.requireNonNull(settings, "pod settings");
    this.runnerDid = Objects.requireNonNull(runnerDid, "runner DID");
    // Hard links are safe: the pod gets a copy through tar and never sees the mirror.
    this.driver = new RunDriver(workRoot, clock, true);
  }

  @Override
  public String name() {
    return "pod";
  }

  @Override
  public RunResult run(
      RunSpec spec, RunCancellation cancellation, RunListener listener, AfterSteps afterSteps) {
    spec = CachedRuns.heldAtTheFloor(floor, spec, cancellation);
    // A run whose AfterSteps reads the checkout (a write-back) gets the pod's /work back.
    boolean copyBack = afterSteps != AfterSteps.NONE;
    AtomicReference<PodHost> host = new AtomicReference<>();
    AtomicReference<PodCaches> cached = new AtomicReference<>();
    AtomicReference<String> adoptedPod = new AtomicReference<>();
    RunResult result = null;
    try {
      result =
          driver.run(
              spec,
              cancellation,
              listener,
              (checkout, r) -> {
                // The pod is gone: a pass promotes what it wrote, before the run's directory goes.
                r = finishCaches(cached.get(), r);
                PodHost h = host.get();
                String failed = h == null ? null : h.copyBackFailed();
                if (failed != null && r.outcome() instanceof RunOutcome.Passed) {
                  String why =
                      "not written back: the pod's checkout could not be copied back: " + failed;
                  return new RunResult(
                      r.steps(),
                      new RunOutcome.Errored(why),
                      concat(r.log(), ("==> " + why + "\n").getBytes(StandardCharsets.UTF_8)),
                      r.outputs());
                }
                return afterSteps.apply(checkout, r);
              },
              (s, paths) -> {
                RunPod pod = RunPod.of(settings, s, runnerDid, paths.runName());
                String runKey = RunKey.of(s);
                String offered = runKey.isEmpty() ? null : adoptable.get(runKey);
                String adopted = null;
                if (offered != null) {
                  // Counted as adopting before it leaves adoptable: a sweep between spares it.
                  adopting.add(offered);
                  adoptedPod.set(offered);
                  adopted = adoptable.remove(runKey);
                }
                PodCaches c = PodCaches.of(caches, s, paths, cachesOnNode, cacheNode);
                cached.set(c);
                if (c != null && c.mounted() && adopted != null) {
                  String old = runOfPod(adopted);
                  if (old != null) {
                    c.adoptedOverlaysOf(old);
                  }
                }
                PodHost h =
                    adopted == null
                        ? new PodHost(api, pod, s, paths, live, false, observer, copyBack, c)
                        : new PodHost(
                            api, pod.named(adopted), s, paths, live, true, observer, copyBack, c);
                host.set(h);
                return h;
              });
    } finally {
      if (result == null) {
        finishCaches(cached.get(), null);
      }
      String pod = adoptedPod.get();
      if (pod != null) {
        adopting.remove(pod);
      }
    }
    return result;
  }

  /** Ends run {@code r}'s caches ({@code c}, null for none); {@code r} with their lines. */
  private static RunResult finishCaches(PodCaches c, RunResult r) {
    if (c == null) {
      return r;
    }
    List<String> lines = c.finish(r != null && r.outcome() instanceof RunOutcome.Passed);
    return r == null ? null : CachedRuns.withLines(r, lines);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] all = new byte[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  /**
   * Keeps the caches on the node this runner runs on, {@code node} (null where the cluster has one
   * node): each run's overlays are mounted there before its pod is made, the pod is held to that
   * node and gets them as hostPath volumes, and nothing is copied ({@link PodCaches}). The runner
   * must then see the node's directory at the same path as the kubelet does, and its mounts must
   * reach the node's (in a pod, mount propagation {@code Bidirectional}).
   */
  public void keepCachesOnNode(String node) {
    this.cacheNode = node;
    this.cachesOnNode = true;
  }

  /** The run under the store's {@code runs/} whose pod is {@code pod}, or null. */
  private String runOfPod(String pod) {
    try (var runs = java.nio.file.Files.list(caches.root().resolve("runs"))) {
      return runs.map(p -> p.getFileName().toString())
          .filter(r -> RunPod.podName(r).equals(pod))
          .findFirst()
          .orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  /** Has {@code observer} hear how the pods of runs started from now on start. */
  public void observe(PodObserver observer) {
    this.observer = java.util.Objects.requireNonNull(observer, "observer");
  }

  /**
   * Has the runs whose {@link RunKey} is a key of {@code pods} follow that pod, made by a runner
   * that stopped (a scheduler before a failover), rather than make one: the steps it launched are
   * read from their first byte and the rest started in it. Until then a sweep spares those pods. A
   * key given again replaces the pod named before.
   */
  public void adopt(Map<String, String> pods) {
    adoptable.putAll(pods);
  }

  /** Whether a pod offered to {@link #adopt} waits for the run of {@code runKey}. */
  public boolean adopting(String runKey) {
    return adoptable.containsKey(runKey);
  }

  /** Forgets a pod offered to {@link #adopt} whose run will not come (it ended meanwhile). */
  public void forgetAdoption(String runKey) {
    adoptable.remove(runKey);
  }

  /**
   * This runner's pods as the API server lists them, its DID checked exactly.
   *
   * @throws IOException when the API server cannot be reached
   */
  public List<PodApi.Listed> pods() throws IOException {
    List<PodApi.Listed> mine = new ArrayList<>();
    for (PodApi.Listed pod : api.list(RunPod.labelValue(runnerDid))) {
      if (runnerDid.equals(pod.runnerDid())) {
        mine.add(pod);
      }
    }
    return mine;
  }

  /**
   * This runner's pods as the API server's watch last told them, without a request of their own
   * where the {@link PodApi} watches: what a gauge reads.
   *
   * @throws IOException when the API server cannot be reached
   */
  public List<PodApi.Listed> watchedPods() throws IOException {
    List<PodApi.Listed> mine = new ArrayList<>();
    for (PodApi.Listed pod : api.watched(RunPod.labelValue(runnerDid))) {
      if (runnerDid.equals(pod.runnerDid())) {
        mine.add(pod);
      }
    }
    return mine;
  }

  /**
   * Deletes this runner's pods that belong to no live run. Errors are logged, never thrown: a sweep
   * that cannot reach the API server tries again at the next.
   */
  @Override
  public void removeLeftovers() {
    sweepPods();
    if (caches != null) {
      // After the pods: a run that is not going leaves overlays and layers here to remove.
      // On the node, overlays a pod waiting to be adopted has as volumes stay until its run ends;
      // by copy the pod holds files, and a stopped run's overlays go at once.
      caches.removeLeftovers(
          run ->
              cachesOnNode
                  && (adoptable.containsValue(RunPod.podName(run))
                      || adopting.contains(RunPod.podName(run))));
    }
  }

  /** The caches, or null when this executor keeps none. */
  public CacheStore cacheStore() {
    return caches;
  }

  private void sweepPods() {
    try {
      // A label value is the DID cut to 63 characters: pods() checks the annotation exactly.
      for (PodApi.Listed pod : pods()) {
        String name = pod.name();
        if (live.holds(name) || adoptable.containsValue(name)) {
          continue;
        }
        api.delete(name);
        LOG.info("deleted leftover pod {}: it carries this runner's label and runs nothing", name);
      }
    } catch (IOException e) {
      LOG.warn("could not sweep leftover pods: {}", e.toString());
    }
  }

  /** The pods of this executor's live runs, which a sweep spares. Thread-safe. */
  static final class Live {
    private final Set<String> pods = new HashSet<>();

    synchronized void add(String name) {
      pods.add(name);
    }

    synchronized void remove(String name) {
      pods.remove(name);
    }

    synchronized boolean holds(String name) {
      return pods.contains(name);
    }
  }
}
