package dev.knotless.testing.infra;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.atproto.cache.SessionStore;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.atproto.oauth.KnotlessScopes;
import dev.knotless.atproto.oauth.LoopbackRedirect;
import dev.knotless.atproto.oauth.OAuthClient;
import dev.knotless.atproto.oauth.OAuthLogins;
import dev.knotless.atproto.oauth.OAuthSession;
import dev.knotless.testing.Account;
import dev.knotless.testing.HeadlessConsent;
import dev.knotless.testing.PdsInstance;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * OAuth sessions for test accounts, made by the real flow against the reference PDS (PAR, sign-in
 * and consent on its own API by {@link HeadlessConsent}, the code exchanged with DPoP), granted
 * knotless's scopes: what a private repository's owner and runner need, since the harness PDS, as
 * one with spaces will, gives a password session no service token for a space. About a second a
 * login. Stateless; each call is a login of its own, so no two users share a refresh token.
 */
public final class HarnessOAuth {
  private HarnessOAuth() {}

  /** Logs in as {@code a} with knotless's scopes. */
  public static OAuthSession login(PdsInstance pds, Account a) throws IOException {
    OAuthClient client = OAuthClient.fromEnvironment(pds.environment());
    Path cache = Files.createTempDirectory("oauth-login");
    var id =
        IdentityResolver.fromEnvironment(
                pds.environment(), new LocalCache(cache, Clock.systemUTC()))
            .resolve(a.handle());
    try (LoopbackRedirect redirect = LoopbackRedirect.start()) {
      OAuthClient.Pending p = client.begin(id, redirect.uri(), KnotlessScopes.requested());
      HeadlessConsent.consent(
          p.authorizeUrl(), a.handle(), a.password(), redirect.uri().toString());
      return client.complete(p, redirect.await(Duration.ofSeconds(30)));
    }
  }

  /**
   * Logs in as {@code a} and saves the session as the login in {@code configDir}'s sessions file,
   * as {@code knotless login} and {@code knotless-run login} do; a tool given that directory
   * ({@code KNOTLESS_CONFIG_DIR}) and no password uses it.
   *
   * @return the sessions file
   */
  public static Path saveLogin(PdsInstance pds, Account a, Path configDir) throws IOException {
    SessionStore store = new SessionStore(configDir);
    store.writeLogin(a.did(), login(pds, a).toJson());
    return store.file();
  }

  /**
   * Logs in as {@code a} and writes the session alone to {@code file}, as a server runner's Secret
   * holds it ({@code KNOTLESS_OAUTH_SESSION}).
   *
   * @return {@code file}
   */
  public static Path sessionFile(PdsInstance pds, Account a, Path file) {
    try {
      Files.write(file, dev.knotless.atproto.Json.write(login(pds, a).toJson()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return file;
  }

  /** A client of {@code a}'s PDS on a fresh OAuth session, kept in a sessions file of its own. */
  public static XrpcClient client(PdsInstance pds, Account a) throws IOException {
    Path dir = Files.createTempDirectory("oauth-client");
    saveLogin(pds, a, dir);
    SessionStore store = new SessionStore(dir);
    OAuthSession s = OAuthLogins.saved(store, a.did()).orElseThrow();
    // At the address the session was granted for (the PDS's public one), as DPoP proofs name it.
    XrpcClient c = XrpcClient.create(s.pds());
    OAuthLogins.resume(c, s, store, pds.environment());
    return c;
  }
}
