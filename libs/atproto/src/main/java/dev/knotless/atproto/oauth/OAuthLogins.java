package dev.knotless.atproto.oauth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.cache.SessionStore;
import dev.knotless.atproto.identity.Identity;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * OAuth logins as the command lines make them and the tools resume them: a browser login through
 * the loopback redirect, saved in the sessions file ({@link SessionStore}, owner-only) under the
 * account's DID, and a saved session put back to work in an {@link XrpcClient}, its refreshes saved
 * as they come. Stateless.
 */
public final class OAuthLogins {
  /** How long a login waits for the person in the browser, unless {@code KNOTLESS_LOGIN_WAIT}. */
  public static final Duration WAIT = Duration.ofMinutes(5);

  private OAuthLogins() {}

  /**
   * Logs in as {@code account} through a browser: prints the page to open on {@code tell}, waits
   * for the redirect, and saves the session as this person's login. Nothing is saved unless it all
   * went through.
   */
  public static OAuthSession viaBrowser(
      Identity account, Map<String, String> env, SessionStore store, PrintStream tell)
      throws IOException {
    OAuthClient client = OAuthClient.fromEnvironment(env);
    OAuthSession s;
    try (LoopbackRedirect redirect = LoopbackRedirect.start()) {
      OAuthClient.Pending p = client.begin(account, redirect.uri(), KnotlessScopes.requested());
      tell.println("Open this address in a browser to log in as " + account.displayName() + ":");
      tell.println();
      tell.println("  " + p.authorizeUrl());
      tell.println();
      tell.println("Waiting for the browser (it comes back to " + redirect.uri() + ") ...");
      tell.flush();
      s = client.complete(p, redirect.await(wait(env)));
    }
    store.writeLogin(s.did(), s.toJson());
    return s;
  }

  /** The saved OAuth session of {@code did}, if the one saved for it is an OAuth session. */
  public static Optional<OAuthSession> saved(SessionStore store, String did) {
    Optional<ObjectNode> json = store.read(did);
    if (json.isEmpty() || !OAuthSession.isOAuth(json.get())) {
      return Optional.empty();
    }
    try {
      return Optional.of(OAuthSession.fromJson(json.get()));
    } catch (OAuthException e) {
      return Optional.empty();
    }
  }

  /**
   * Puts the saved session {@code s} to work in {@code client}: refreshed ahead of its end under
   * the sessions file's lock, each new session saved, and one another process saved taken up rather
   * than a spent token used.
   *
   * @throws OAuthException telling its owner to log in again when it was granted too little
   */
  public static OAuthTokens resume(
      XrpcClient client, OAuthSession s, SessionStore store, Map<String, String> env)
      throws OAuthException {
    KnotlessScopes.requireForWrites(s);
    OAuthTokens tokens =
        new OAuthTokens(
            s,
            OAuthClient.fromEnvironment(env),
            Clock.systemUTC(),
            () -> saved(store, s.did()),
            fresh -> store.write(fresh.did(), fresh.toJson()),
            work -> store.exclusively(work::run));
    client.resume(tokens);
    return tokens;
  }

  /** Ends the session at its server, then forgets it here. */
  public static void logout(OAuthSession s, SessionStore store, Map<String, String> env)
      throws OAuthException {
    try {
      OAuthClient.fromEnvironment(env).revoke(s);
    } finally {
      store.remove(s.did());
    }
  }

  private static Duration wait(Map<String, String> env) {
    String v = env.get("KNOTLESS_LOGIN_WAIT");
    try {
      return v == null || v.isBlank() ? WAIT : Duration.ofSeconds(Long.parseLong(v.strip()));
    } catch (NumberFormatException e) {
      return WAIT;
    }
  }
}
