package dev.knotless.run.reconciler.app;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.time.Duration;
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
}
