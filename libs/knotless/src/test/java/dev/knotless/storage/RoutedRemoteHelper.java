package dev.knotless.storage;

import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.atproto.cache.SessionStore;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.identity.HandleResolver;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.storage.remote.GitRemoteKnotless;
import dev.knotless.testing.TestTls;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code git-remote-knotless} as git runs it, for a handle that resolves only through a {@code
 * .well-known/atproto-did} server the test started: everything is the production helper but how an
 * identity is resolved. A handle is served on port 443 of a real domain name, so the handle's https
 * connections are routed to the test's server ({@link ServiceAddresses#routing}, which nothing but
 * code reaches), whose certificate is trusted; no DNS record is found and the PDS is never asked to
 * resolve it. Run by a shim the test writes, with {@code -Dtest.route=<host>=<port>} and {@code
 * -Dtest.trust=<key store>}.
 */
public final class RoutedRemoteHelper {
  private RoutedRemoteHelper() {}

  public static void main(String[] args) {
    GitRemoteKnotless.main(args, RoutedRemoteHelper::repos);
  }

  private static KnotlessRepos repos(Map<String, String> env) {
    try {
      String[] route = System.getProperty("test.route").split("=");
      ServiceAddresses addresses =
          ServiceAddresses.allowingLoopback()
              .routing(
                  Map.of(
                      route[0],
                      new InetSocketAddress(
                          InetAddress.getLoopbackAddress(), Integer.parseInt(route[1]))));
      HttpClient http =
          addresses
              .clientBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(10))
              .followRedirects(HttpClient.Redirect.NEVER)
              .sslContext(TestTls.load(Path.of(System.getProperty("test.trust"))).trusting())
              .build();
      Clock clock = Clock.systemUTC();
      StorageCache cache = StorageCache.fromEnvironment(env, clock);
      IdentityResolver identities =
          new IdentityResolver(
              new HandleResolver(null, http, name -> List.of(), addresses),
              new DidResolver(URI.create(env.get("KNOTLESS_PLC_URL")), http, addresses),
              cache.local());
      return new KnotlessRepos(
          identities,
          cache,
          SessionStore.fromEnvironment(env),
          clock,
          Settings.fromEnvironment(env),
          env);
    } catch (Exception e) {
      throw new IllegalStateException("the test's routed helper: " + e.getMessage(), e);
    }
  }
}
