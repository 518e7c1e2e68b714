package dev.knotless.run.checkwriter.app;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.atproto.identity.IdentityException;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.run.events.PdsMetrics;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.runner.filing.RetryingWrites;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The runner's session at its PDS, made on first use (the PDS may be down as the service starts),
 * and the {@link CheckFiler} over it.
 */
@ApplicationScoped
public class PdsSession {
  private final CheckWriterConfig config;
  private final MeterRegistry registry;
  private volatile URI pds;
  private static final Duration TOKEN_REUSE = Duration.ofSeconds(30);

  private record CachedToken(String token, Instant until) {}

  private final Map<String, CachedToken> tokens = new ConcurrentHashMap<>();
  private XrpcClient client;
  private CheckFiler filer;
  private dev.knotless.runner.filing.SpaceRoutes routes;

  private final javax.sql.DataSource db;

  public PdsSession(CheckWriterConfig config, MeterRegistry registry, javax.sql.DataSource db) {
    this.config = config;
    this.registry = registry;
    this.db = db;
  }

  /** The PDS, resolved from the identifier unless configured. */
  public URI pds() throws IOException {
    URI p = pds;
    if (p == null) {
      if (config.pds().isPresent()) {
        p = config.pds().get();
      } else {
        try {
          p =
              IdentityResolver.fromEnvironment(
                      System.getenv(),
                      LocalCache.fromEnvironment(System.getenv(), Clock.systemUTC()))
                  .resolve(config.identifier())
                  .pds();
        } catch (IdentityException e) {
          throw new IOException(
              "the runner's PDS could not be resolved from " + config.identifier(), e);
        }
      }
      pds = p;
    }
    return p;
  }

  /** The filer, logging in first if it has not yet. */
  public synchronized CheckFiler filer() throws IOException {
    if (filer == null) {
      HttpClient http =
          dev.knotless.atproto.ServiceAddresses.process()
              .clientBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(10))
              .build();
      XrpcClient client;
      String seed = System.getenv(dev.knotless.runner.pass.RunnerSessions.SEED);
      if (config.password().isEmpty() && seed != null && !seed.isBlank()) {
        // The OAuth session the Secret mounts, shared with the other services' replicas through
        // the database (oauth_session) and refreshed under its row lock.
        client =
            dev.knotless.runner.pass.SharedSessions.resume(
                System.getenv(),
                new dev.knotless.runner.state.pg.PgOAuthSessions(db),
                http,
                new PdsMetrics(registry));
      } else if (config.password().isEmpty()) {
        throw new IOException(
            "no login for the runner: set KNOTLESS_PASSWORD to its app password, or"
                + " KNOTLESS_OAUTH_SESSION to its OAuth session file");
      } else {
        client = XrpcClient.create(pds(), http, new PdsMetrics(registry));
        try {
          client.login(config.identifier(), config.password().get());
        } catch (XrpcException e) {
          throw new IOException(
              "the runner " + config.identifier() + " could not log in: " + e.getMessage(), e);
        }
      }
      this.client = client;
      filer = new CheckFiler(new RetryingWrites(client));
    }
    return filer;
  }

  /**
   * A service token from the PDS for calling {@code lxm} at the service {@code aud}, good for about
   * a minute.
   */
  public String serviceToken(String aud, String lxm) throws IOException {
    String cacheKey = aud + " " + lxm;
    CachedToken cached = tokens.get(cacheKey);
    if (cached != null && Instant.now().isBefore(cached.until())) {
      return cached.token();
    }
    filer();
    XrpcClient c;
    synchronized (this) {
      c = client;
    }
    String token =
        c.query("com.atproto.server.getServiceAuth", Map.of("aud", aud, "lxm", lxm))
            .path("token")
            .asText("");
    if (token.isEmpty()) {
      throw new IOException("the PDS gave no service token for " + lxm);
    }
    // The PDS makes them good for a minute; half that leaves room for clocks and slow calls.
    tokens.put(cacheKey, new CachedToken(token, Instant.now().plus(TOKEN_REUSE)));
    return token;
  }

  /**
   * Where private repositories' checks go: the space host {@code KNOTLESS_SPACE_HOST} names, as the
   * all-in-one finds it, asked as the runner (logging in first if it has not yet).
   */
  public synchronized dev.knotless.runner.filing.SpaceRoutes routes() throws IOException {
    if (routes == null) {
      CheckFiler f = filer();
      String host = System.getenv(dev.knotless.storage.PrivateRepos.HOST_ENV);
      routes =
          dev.knotless.runner.filing.SpaceRoutes.of(
              host == null || host.isBlank() ? null : URI.create(host.strip()),
              client,
              f,
              Clock.systemUTC());
    }
    return routes;
  }

  /** The filer if logged in already. */
  public synchronized Optional<CheckFiler> current() {
    return Optional.ofNullable(filer);
  }
}
