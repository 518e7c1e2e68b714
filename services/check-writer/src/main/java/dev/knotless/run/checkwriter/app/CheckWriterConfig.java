package dev.knotless.run.checkwriter.app;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/** The check-writer's settings. */
@ConfigMapping(prefix = "knotless.check-writer")
public interface CheckWriterConfig {
  /** The runner's account, a handle or DID (KNOTLESS_IDENTIFIER); checks are filed there. */
  String identifier();

  /**
   * The runner account's app password (KNOTLESS_PASSWORD); never logged. Unset, the OAuth session
   * the file in KNOTLESS_OAUTH_SESSION holds is shared with the other replicas through the
   * database.
   */
  Optional<String> password();

  /** The runner's PDS; unset resolves it from the identifier (PLC or did:web, handle). */
  Optional<URI> pds();

  /** The appview live output goes to (KNOTLESS_APPVIEW); unset or empty sends none. */
  Optional<URI> appview();

  /**
   * The appview's service DID; set, each putRunOutput carries a service token the PDS made for it.
   * Unset sends none.
   */
  Optional<String> appviewDid();

  /** How often the live-output rounds are looked at; each check goes every 1 or 5 s. */
  @WithDefault("1s")
  Duration tick();
}
