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

  /**
   * How often each private repository's space is asked what was written (as the all-in-one's {@code
   * --poll}), by the reconciler holding the repository's doorbell partition; only with a space host
   * ({@code KNOTLESS_SPACE_HOST}).
   */
  @WithDefault("10s")
  Duration poll();

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

  /** The merge queue, as the all-in-one's {@code --queue}, {@code --batch} and {@code --depth}. */
  Queue queue();

  /** The merge queue's settings. */
  interface Queue {
    /**
     * Lands the watched repositories' merge queues (docs/merge.md); needs {@link #pulls}, and lands
     * only repositories of the account the reconciler logs in as.
     */
    @WithDefault("false")
    boolean enabled();

    /** The most queued pulls in one batch. */
    @WithDefault("8")
    int batch();

    /** The most batches checked at once on a branch, each built ahead on the one before. */
    @WithDefault("2")
    int depth();

    /**
     * How often the queue records the passes read are read again ({@code --notice}), ringing the
     * doors of repositories whose records changed: a collaborator's queue record the ingester's
     * Jetstream does not send is heard this way.
     */
    @WithDefault("30s")
    Duration notice();
  }

  /**
   * The appview ({@code KNOTLESS_APPVIEW}): listRepos for discovery, listPulls for pulls, owners'
   * sealed secrets.
   */
  Optional<URI> appview();

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

  /**
   * The recovery of runs that reconcilers of older versions ran themselves (docs/upgrading.md): a
   * row with no order held by a worker silent past {@code stale-after} is filed again.
   */
  Recovery recovery();

  /** The recovery's settings. */
  interface Recovery {
    /** How often this reconciler looks for such rows. */
    @WithDefault("5s")
    Duration every();

    /** How long the worker holding such a row must have been silent. */
    @WithDefault("30s")
    Duration staleAfter();
  }

  /** The storage cache directory ({@code KNOTLESS_CACHE_DIR}); unset uses the environment's. */
  Optional<String> cacheDir();
}
