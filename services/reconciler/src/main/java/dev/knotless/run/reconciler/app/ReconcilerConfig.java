package dev.knotless.run.reconciler.app;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The reconciler's settings. */
@ConfigMapping(prefix = "knotless.reconciler")
public interface ReconcilerConfig {
  /** How many repositories' passes this instance runs at once. */
  @WithDefault("4")
  int passThreads();

  /** The sweep interval of the runner; a failed pass rings again after min(sweep, 60 s). */
  @WithDefault("600s")
  Duration sweep();

  /** The PDS passes read from, checked by readiness; unset leaves that check out. */
  Optional<URI> pds();

  /** How often the run-queue gauges are refreshed from PostgreSQL. */
  @WithDefault("10s")
  Duration queueGaugeRefresh();

  /** The runner account's handle or DID (from {@code KNOTLESS_IDENTIFIER}); needed by passes. */
  Optional<String> identifier();

  /** The runner account's app password (from {@code KNOTLESS_PASSWORD}); never logged. */
  Optional<String> password();

  /** Watched repositories, each {@code <handle or did>/<name>}, read at the first pass. */
  Optional<List<String>> repos();

  /**
   * The list of watched repositories (the chart's ConfigMap): one {@code <handle or did>/<name>} a
   * line, {@code #} comments; adds to {@link #repos}. Read at the first pass.
   */
  Optional<java.nio.file.Path> reposFile();

  /**
   * Watches, besides those listed, every repository whose record names the runner, as the
   * all-in-one's {@code --discover}: asked of {@link #appview} at the first pass and every {@link
   * #sweep}.
   */
  @WithDefault("false")
  boolean discover();

  /**
   * Checks the watched repositories' open pulls after their refs, as the all-in-one's {@code
   * --pulls}: listed by {@link #appview} ({@code dev.knotless.listPulls}), each due pull's runs
   * filed at the merge of its head into the base tip.
   */
  @WithDefault("false")
  boolean pulls();

  /**
   * The appview ({@code KNOTLESS_APPVIEW}): listRepos for discovery, listPulls for pulls, owners'
   * sealed secrets.
   */
  Optional<URI> appview();

  /**
   * The runner's key file ({@code --secrets-key}), mounted from a Kubernetes Secret: published as
   * the {@code dev.knotless.runnerKey} record and opened for owners' sealed secrets. Set it only
   * where runs are planned with their steps (worker mode {@code run}); unset opens none.
   */
  Optional<java.nio.file.Path> secretsKeyFile();

  /** Where DIDs are resolved ({@code KNOTLESS_PLC_URL}); unset uses the environment's. */
  Optional<String> plcUrl();

  /** Where handles are resolved ({@code KNOTLESS_HANDLE_RESOLVER}); unset uses DNS and HTTPS. */
  Optional<String> handleResolver();

  /** The secrets file, as the all-in-one's {@code --secrets}; unset grants no secret. */
  Optional<java.nio.file.Path> secretsFile();

  /** The paused owners file, as {@code --paused}; unset pauses no one. */
  Optional<java.nio.file.Path> pausedFile();

  /** The longest a step may run, as {@code --step-timeout}. */
  @WithDefault("1800s")
  Duration stepTimeout();

  /** The longest a run may take, as {@code --run-timeout}; unset has no limit. */
  Optional<Duration> runTimeout();

  /** Days the default branch's checks are kept, as {@code --keep-checks}; 0 prunes nothing. */
  @WithDefault("30")
  int keepChecks();

  /** The worker that runs the queued runs, each in a container of its own by default. */
  Worker worker();

  /** The worker's settings. */
  interface Worker {
    /**
     * {@code run}: this instance runs the runs its passes queue; {@code queue}: it only queues
     * them, with their orders, for the scheduler, which runs each as a pod, and runs nothing
     * itself.
     */
    @WithDefault("run")
    String mode();

    /** How many runs go at once in this instance. */
    @WithDefault("4")
    int jobs();

    /**
     * How many jobs one owner's runs may hold at once across every reconciler ({@code
     * --owner-jobs}); unset: {@code jobs}.
     */
    java.util.Optional<Integer> ownerJobs();

    /**
     * Minutes of steps per owner over 30 days, public repositories ({@code --allowance}), counted
     * across every reconciler from the state in PostgreSQL; unset: none.
     */
    java.util.Optional<Long> allowance();

    /**
     * How often this worker catches its usage up with every reconciler's (for allowances) and
     * writes the minutes records held back by their five-minute spacing.
     */
    @WithDefault("10s")
    Duration usageRefresh();

    /** Where runs' checkouts and logs are made ({@code --work} of the all-in-one). */
    @WithDefault("${java.io.tmpdir}/knotless-reconciler-work")
    java.nio.file.Path work();

    /** How often this worker says it is alive for the runs it holds. */
    @WithDefault("5s")
    Duration heartbeat();

    /** How long a worker may be silent before its runs are filed again by another. */
    @WithDefault("30s")
    Duration staleAfter();

    /**
     * How long a stopped worker waits for its runs to end ({@code --stop-wait}); what still runs
     * then is cancelled and handed to another worker. The pod's termination grace must be longer.
     */
    @WithDefault("900s")
    Duration stopWait();

    /**
     * How runs execute: {@code docker}, each in a container of its own, or {@code shell}, as this
     * service's own user beside its credentials (only for code you trust with the service).
     */
    @WithDefault("docker")
    String executor();

    /** The docker daemon, as the all-in-one's {@code DOCKER_HOST}. */
    @WithDefault("unix:///var/run/docker.sock")
    String dockerHost();

    /** The image of a workflow that names none, as {@code --image}; unset: the executor's. */
    Optional<String> image();

    /** CPUs a run's container may use, as {@code --cpus}; unset has no limit. */
    java.util.OptionalDouble cpus();

    /** Memory of a run's container in whole GiB, no swap past it, as {@code --memory}. */
    java.util.OptionalInt memory();

    /** Processes a run's container may hold, as {@code --pids}. */
    java.util.OptionalInt pids();

    /**
     * The network runs join, made if missing with traffic between runs off, as {@code --network}.
     */
    Optional<String> network();

    /** The container runtime of runs, such as runsc, as {@code --runtime}. */
    Optional<String> runtime();
  }

  /** The storage cache directory ({@code KNOTLESS_CACHE_DIR}); unset uses the environment's. */
  Optional<String> cacheDir();
}
