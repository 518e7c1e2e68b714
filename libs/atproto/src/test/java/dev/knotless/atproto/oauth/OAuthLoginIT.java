package dev.knotless.atproto.oauth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.atproto.identity.Identity;
import dev.knotless.atproto.identity.IdentityResolver;
import dev.knotless.testing.Account;
import dev.knotless.testing.ConsentBrowser;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.PdsOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * OAuth against the reference PDS's own authorization server, consent given in its own pages by a
 * real headless chromium. The PDS's access tokens last {@value #TOKEN_SECONDS} s, so refreshes
 * happen within a test.
 */
class OAuthLoginIT {
  static final int TOKEN_SECONDS = 12;

  static PdsInstance pds;
  static ConsentBrowser browser;
  static Map<String, String> env;

  @BeforeAll
  static void start() {
    pds =
        PdsInstance.start(
            PdsOptions.defaults(),
            Map.of("PROBE_OAUTH_TOKEN_SECONDS", Integer.toString(TOKEN_SECONDS)));
    browser = ConsentBrowser.start();
    env = pds.environment();
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
    if (pds != null) {
      pds.close();
    }
  }

  static Identity resolve(String who) throws Exception {
    Path dir = Files.createTempDirectory("oauth-cache");
    return IdentityResolver.fromEnvironment(env, new LocalCache(dir, Clock.systemUTC()))
        .resolve(who);
  }

  /** A full login as {@code a}: PAR, the browser's sign-in and consent, the code exchange. */
  static OAuthSession login(Account a, String scope) throws Exception {
    OAuthClient client = OAuthClient.fromEnvironment(env);
    try (LoopbackRedirect redirect = LoopbackRedirect.start()) {
      OAuthClient.Pending p = client.begin(resolve(a.handle()), redirect.uri(), scope);
      browser.consent(p.authorizeUrl(), a.password(), redirect.uri().toString());
      return client.complete(p, redirect.await(Duration.ofSeconds(30)));
    }
  }

  static XrpcClient clientOf(OAuthSession s, List<OAuthSession> saved) {
    XrpcClient c = XrpcClient.create(s.pds());
    c.resume(
        new OAuthTokens(
            s, OAuthClient.fromEnvironment(env), Clock.systemUTC(), Optional::empty, saved::add));
    return c;
  }

  static ObjectNode ref(String name) {
    ObjectNode n = Json.object();
    n.put("name", name);
    n.put("generation", 1);
    return n;
  }

  @Test
  void aLoginThroughTheBrowserWritesARecordWithDpopBoundTokens() throws Exception {
    Account a = pds.createAccount("oauth");
    OAuthSession s = login(a, KnotlessScopes.requested());
    assertEquals(a.did(), s.did());
    assertTrue(KnotlessScopes.missing(s.scope()).isEmpty(), s.scope());
    assertFalse(s.toString().contains(s.accessToken()), "tokens stay out of toString");
    XrpcClient c = clientOf(s, new java.util.ArrayList<>());
    assertEquals("OAuth session", c.loginKind());
    c.putRecord(a.did(), "dev.knotless.ref", "main", ref("main"), Swap.none());
    Record r = XrpcClient.create(pds.pdsUrl()).getRecord(a.did(), "dev.knotless.ref", "main");
    assertEquals("main", r.value().path("name").asText());
  }
}
