package dev.knotless.run.scheduler.app;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/** The scheduler's settings; docs/distributed.md lists them with their environment names. */
@ConfigMapping(prefix = "knotless.scheduler")
public interface SchedulerConfig {

  /** The namespace run pods are made in. */
  @WithDefault("knotless-runs")
  String namespace();

  /** The RuntimeClass of others' code, such as gVisor's ({@code --runtime}). */
  Optional<String> runtimeClass();

  /** The RuntimeClass of code an owner named with {@code --trust} vouches for. */
  Optional<String> trustedRuntimeClass();

  /** The image of a workflow that names none ({@code --image}). */
  @WithDefault("knotless-run/run-base:latest")
  String runImage();

  /** Runs going at once across the cluster. */
  @WithDefault("8")
  int jobs();

  /**
   * How many jobs one owner's runs may hold at once ({@code --owner-jobs}); unset: {@code jobs}.
   */
  Optional<Integer> ownerJobs();

  /**
   * Minutes of steps per owner over 30 days, public repositories ({@code --allowance}), counted
   * with what every worker's runs used, from the state in PostgreSQL; unset: none.
   */
  Optional<Long> allowance();

  /**
   * How often the leader catches its usage up with the state (runs other workers ran) and writes
   * the minutes records held back by their five-minute spacing.
   */
  @WithDefault("10s")
  Duration usageRefresh();

  /** How long a run's pod may stay pending before its run fails. */
  @WithDefault("300s")
  Duration pendingTimeout();

  /** How long an image pull may keep failing before its run fails. */
  @WithDefault("30s")
  Duration pullGrace();

  /**
   * How often the watch on the runner's pods goes over every pod again, events or not: a safety net
   * for an event handled badly. Zero never does.
   */
  @WithDefault("30s")
  Duration watchResync();

  /** CPUs a run's pod may use. */
  OptionalDouble cpus();

  /** Memory of a run's pod, in whole GiB. */
  OptionalInt memory();

  /** Local disk a run's pod may fill, checkout included, in whole GiB. */
  OptionalInt ephemeralStorage();

  /**
   * A JSON file of what the operator lays over every run pod ({@code --pod-overlay}: pull Secrets,
   * node selector, tolerations, priority class, a spec patch), mounted from the chart's ConfigMap;
   * read at start, where a wrong one, or a patch naming a field the runner guarantees, stops the
   * scheduler. Unset: nothing.
   */
  Optional<Path> podOverlayFile();

  /**
   * Where runs' caches are kept on this scheduler's own disk, copied into each pod as its checkout
   * is ({@code --cache-dir}); unset: workflows' cache paths are ignored. Needs root and overlayfs.
   */
  Optional<Path> runCacheDir();

  /**
   * The node this scheduler runs on, when its {@link #runCacheDir} is a directory of that node's
   * (the chart's {@code scheduler.runCaches.placement: node}): runs' pods are held to the node and
   * get their caches' overlays as hostPath volumes, nothing copied. Unset: copied into the pods.
   */
  Optional<String> runCacheNode();

  /** The largest base made current, in whole GiB ({@code --cache-max}); unset: 16. */
  OptionalInt runCacheMax();

  /** Free space kept on the caches' disk, in whole GiB, 0 for none ({@code --disk-floor}). */
  OptionalInt diskFloor();

  /** The user id steps run as with runAsNonRoot; 0 for the image's own user. */
  @WithDefault("0")
  long runAsUser();

  /** The Lease schedulers elect their leader on. */
  @WithDefault("knotless-scheduler")
  String leaseName();

  /** The Lease's namespace; unset uses {@link #namespace}. */
  Optional<String> leaseNamespace();

  /** This instance's name in the Lease (its pod's name); unset makes one up. */
  Optional<String> identity();

  /** How long a leader's Lease holds without renewal. */
  @WithDefault("15s")
  Duration leaseDuration();

  /** How long a leader keeps trying to renew before it gives up leading. */
  @WithDefault("10s")
  Duration renewDeadline();

  /** How often a standby tries for the Lease and the leader renews it. */
  @WithDefault("2s")
  Duration retryPeriod();

  /** How often the leader looks for queued runs. */
  @WithDefault("1s")
  Duration poll();

  /** How often the leader stamps the runs it holds. */
  @WithDefault("5s")
  Duration heartbeat();

  /** How often leftover pods are removed and pod gauges read. */
  @WithDefault("30s")
  Duration sweep();

  /** The API server's address; unset reads the cluster's own (in a pod) or a kubeconfig. */
  Optional<String> apiServer();

  /** The bearer token for {@link #apiServer}; unset reads the pod's service account. */
  Optional<String> apiToken();

  /** Where runs' checkouts are made before they are copied into their pods. */
  @WithDefault("${java.io.tmpdir}/knotless-scheduler-work")
  Path work();

  /** The storage cache (mirrors); unset uses {@code KNOTLESS_CACHE_DIR} or its default. */
  Optional<String> cacheDir();

  /** The secrets file ({@code --secrets}), read as each run that lists secrets starts. */
  Optional<Path> secretsFile();

  /**
   * The runner's key file ({@code --secrets-key}), mounted from a Kubernetes Secret: published as
   * the {@code dev.knotless.runnerKey} record at start and opened for owners' sealed secrets; unset
   * opens none.
   */
  Optional<Path> secretsKeyFile();

  /** The appview owners' sealed secrets are listed from ({@code KNOTLESS_APPVIEW}). */
  Optional<java.net.URI> appview();

  /** The longest a step may run. */
  @WithDefault("1800s")
  Duration stepTimeout();

  /** The longest a run may take. */
  Optional<Duration> runTimeout();

  /** The runner account's handle or DID. */
  Optional<String> identifier();

  /** The runner account's app password. */
  Optional<String> password();

  /** Where did:plc identities resolve ({@code KNOTLESS_PLC_URL}). */
  Optional<String> plcUrl();

  /** Where handles resolve ({@code KNOTLESS_HANDLE_RESOLVER}). */
  Optional<String> handleResolver();
}
