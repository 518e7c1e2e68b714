package dev.knotless.runtime.pods;

import dev.knotless.runner.exec.CachedRuns;
import dev.knotless.runner.exec.ExecutorConfig;
import dev.knotless.runner.exec.ExecutorContext;
import dev.knotless.runner.exec.ExecutorKind;
import dev.knotless.runner.exec.cache.CacheSettings;
import dev.knotless.runner.exec.pod.PodExecutor;
import dev.knotless.runner.exec.pod.PodOverlay;
import dev.knotless.runner.exec.pod.PodSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code pod} kind: each run in a Kubernetes pod of its own ({@link PodExecutor}), through the
 * API server with Fabric8, which is why it lives here and not in libs. It owns the pod's flags and
 * the namespace and timing keys, and reads the operator's {@link PodOverlay} from the file {@code
 * pod-overlay} names, refusing a wrong one before any pod is made. Found on the class path with the
 * client Fabric8 configures from the environment; a service with a client of its own (the
 * scheduler) registers {@link #PodKind(KubernetesClient)} in its place. Stateless.
 */
public final class PodKind implements ExecutorKind<PodKind.Settings> {

  /** What it is called. */
  public static final String NAME = "pod";

  private static final Logger LOG = LoggerFactory.getLogger(PodKind.class);

  private static final List<String> FLAGS =
      List.of(
          "image",
          "cpus",
          "memory",
          "ephemeral-storage",
          "runtime",
          "trusted-runtime",
          "run-as-user",
          "namespace",
          "pull-grace",
          "pending-timeout",
          "watch-resync",
          "pod-overlay",
          "cache-dir",
          "cache-max",
          "disk-floor",
          "cache-on-node");

  /**
   * The pod kind's settings. Immutable.
   *
   * @param pod what runs' pods may take
   * @param namespace the namespace runs' pods are made in
   * @param pullGrace how long a pod may fail to pull its image before its run fails
   * @param pendingTimeout how long a pod may stay pending, zero for no bound but the step limit
   * @param watchResync how often the pod watch goes over every pod again, zero for never
   * @param caches where workflows' caches are kept on this runner's disk, {@link
   *     CacheSettings#NONE} for nowhere
   * @param cacheNode with caches, the node this runner runs on and keeps them on, whose runs' pods
   *     get them as volumes there ({@code --cache-on-node}); null: they are copied into the pods
   */
  public record Settings(
      PodSettings pod,
      String namespace,
      Duration pullGrace,
      Duration pendingTimeout,
      Duration watchResync,
      CacheSettings caches,
      String cacheNode) {

    /** Settings whose caches, if any, are copied into the pods. */
    public Settings(
        PodSettings pod,
        String namespace,
        Duration pullGrace,
        Duration pendingTimeout,
        Duration watchResync,
        CacheSettings caches) {
      this(pod, namespace, pullGrace, pendingTimeout, watchResync, caches, null);
    }

    /** Settings keeping no caches. */
    public Settings(
        PodSettings pod,
        String namespace,
        Duration pullGrace,
        Duration pendingTimeout,
        Duration watchResync) {
      this(pod, namespace, pullGrace, pendingTimeout, watchResync, CacheSettings.NONE);
    }

    /** Checks the values. */
    public Settings {
      Objects.requireNonNull(pod, "pod settings");
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(pullGrace, "pull grace");
      Objects.requireNonNull(pendingTimeout, "pending timeout");
      Objects.requireNonNull(watchResync, "watch resync");
      Objects.requireNonNull(caches, "cache settings");
    }
  }

  private final KubernetesClient client;

  /** The kind with the client Fabric8 configures from the environment, made when first opened. */
  public PodKind() {
    this.client = null;
  }

  /** The kind talking through {@code client}, configured by its owner. */
  public PodKind(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
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
    return "runs steps in Kubernetes pods";
  }

  @Override
  public Settings settings(ExecutorConfig c) {
    PodSettings p = PodSettings.defaults();
    p = p.withImage(c.text("image").orElse(p.image()));
    p =
        p.withLimits(
            c.cpus("cpus").orElse(p.cpus()),
            c.wholeAbove0("memory", "GiB, such as 4").orElse(p.memoryGiB()),
            c.wholeAbove0("ephemeral-storage", "GiB, such as 10").orElse(p.ephemeralGiB()));
    p =
        p.withRuntimes(
            c.text("runtime").orElse(p.runtime()),
            c.text("trusted-runtime").orElse(p.trustedRuntime()));
    p = p.withRunAsUser(c.wholeFrom0("run-as-user", "user id, such as 1000").orElse(p.runAsUser()));
    p = p.withOverlay(c.text("pod-overlay").map(PodKind::overlay).orElse(PodOverlay.NONE));
    return new Settings(
        p,
        c.text("namespace").orElse("knotless-runs"),
        c.duration("pull-grace").orElse(Duration.ofSeconds(30)),
        c.duration("pending-timeout").orElse(Duration.ofSeconds(300)),
        c.duration("watch-resync").orElse(PodWatch.RESYNC),
        CachedRuns.settings(c),
        c.text("cache-on-node").filter(n -> !n.isBlank()).orElse(null));
  }

  /**
   * The operator's overlay in the JSON file {@code file} ({@link PodOverlay#fromJson}), checked to
   * make a pod the API server takes as written.
   *
   * @throws IllegalArgumentException naming the flag, the file and the field that is wrong
   */
  static PodOverlay overlay(String file) {
    String json;
    try {
      json = Files.readString(Path.of(file));
    } catch (IOException e) {
      throw new IllegalArgumentException("--pod-overlay " + file + ": cannot read it: " + e, e);
    }
    try {
      PodOverlay overlay = PodOverlay.fromJson(json);
      RunPods.check(overlay);
      return overlay;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--pod-overlay " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Optional<String> unavailable(Settings settings) {
    if (client != null || configured(System.getenv(), Path.of(System.getProperty("user.home")))) {
      return Optional.empty();
    }
    return Optional.of(
        "no Kubernetes API server is configured: not in a cluster, and no KUBECONFIG or"
            + " ~/.kube/config");
  }

  /** Whether Fabric8 would find an API server: in a cluster, or through a kubeconfig. */
  static boolean configured(Map<String, String> env, Path home) {
    return env.containsKey("KUBERNETES_SERVICE_HOST")
        || env.containsKey("KUBERNETES_MASTER")
        || System.getProperty("kubernetes.master") != null
        || env.containsKey("KUBECONFIG")
        || Files.isRegularFile(home.resolve(".kube/config"));
  }

  @Override
  public PodExecutor open(Settings settings, ExecutorContext context) {
    KubernetesClient c = client != null ? client : new KubernetesClientBuilder().build();
    LOG.info("runs go in pods in the namespace {}", settings.namespace());
    CachedRuns.Opened caches = CachedRuns.open(settings.caches());
    if (caches.store() != null) {
      LOG.info(
          "caches kept under {}, {}; a base up to {} GiB",
          settings.caches().dir(),
          settings.cacheNode() == null
              ? "copied into pods as their checkouts are"
              : "mounted into pods held to node " + settings.cacheNode(),
          settings.caches().maxBytes() >> 30);
    }
    PodExecutor executor =
        new PodExecutor(
            new Fabric8PodApi(
                c,
                settings.namespace(),
                settings.pullGrace(),
                settings.pendingTimeout(),
                settings.watchResync()),
            settings.pod(),
            context.runnerDid(),
            context.work(),
            context.clock(),
            caches.store(),
            caches.floor());
    if (caches.store() != null && settings.cacheNode() != null) {
      executor.keepCachesOnNode(settings.cacheNode());
    }
    return executor;
  }
}
