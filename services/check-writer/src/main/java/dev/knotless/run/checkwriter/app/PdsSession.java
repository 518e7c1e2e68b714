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

  public PdsSession(CheckWriterConfig config, MeterRegistry registry) {
    this.config = config;
    this.registry = registry;
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
      XrpcClient client =
          XrpcClient.create(
              pds(),
              dev.knotless.atproto.ServiceAddresses.process()
                  .clientBuilder()
                  .version(HttpClient.Version.HTTP_1_1)
                  .connectTimeout(Duration.ofSeconds(10))
                  .build(),
              new PdsMetrics(registry));
      try {
        client.login(config.identifier(), config.password());
      } catch (XrpcException e) {
        throw new IOException(
            "the runner " + config.identifier() + " could not log in: " + e.getMessage(), e);
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

  /** The filer if logged in already. */
  public synchronized Optional<CheckFiler> current() {
    return Optional.ofNullable(filer);
  }
}
