package dev.knotless.atproto.oauth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.XrpcObserver;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

  static XrpcClient clientOf(
      OAuthSession s, Clock clock, List<OAuthSession> saved, XrpcObserver observer) {
    XrpcClient c =
        XrpcClient.create(
            s.pds(), dev.knotless.atproto.ServiceAddresses.process().client(), observer);
    c.resume(
        new OAuthTokens(s, OAuthClient.fromEnvironment(env), clock, Optional::empty, saved::add));
    return c;
  }

  /** A clock {@code ahead} in the future: the client sees its token near its end at once. */
  static Clock ahead(Duration ahead) {
    return Clock.offset(Clock.systemUTC(), ahead);
  }

  @Test
  void aTokenNearItsEndIsRefreshedBeforeTheCallAndTheNewSessionSaved() throws Exception {
    Account a = pds.createAccount("refresh");
    OAuthSession s = login(a, KnotlessScopes.requested());
    List<OAuthSession> saved = new ArrayList<>();
    XrpcClient c =
        clientOf(s, ahead(Duration.ofSeconds(TOKEN_SECONDS - 1)), saved, XrpcObserver.NONE);
    c.putRecord(a.did(), "dev.knotless.ref", "main", ref("main"), Swap.none());
    assertEquals(1, saved.size(), "one refresh, saved");
    assertNotEquals(s.accessToken(), saved.get(0).accessToken());
    assertNotEquals(s.refreshToken(), saved.get(0).refreshToken(), "refresh tokens rotate");
    // The old refresh token is spent: the server refuses it, and says log in again.
    OAuthException spent =
        assertThrows(OAuthException.class, () -> OAuthClient.fromEnvironment(env).refresh(s));
    assertTrue(spent.loginAgain(), spent.getMessage());
    assertTrue(spent.getMessage().contains("log in again"), spent.getMessage());
  }

  @Test
  void aTokenThePdsCallsExpiredIsRefreshedOnceAndTheCallMadeAgain() throws Exception {
    Account a = pds.createAccount("expired");
    OAuthSession s = login(a, KnotlessScopes.requested());
    // A client whose clock runs behind the server's (skew): it thinks the token is still good.
    List<OAuthSession> saved = new ArrayList<>();
    List<Integer> statuses = new CopyOnWriteArrayList<>();
    XrpcClient c =
        clientOf(s, ahead(Duration.ofHours(-1)), saved, (m, status, nanos) -> statuses.add(status));
    // Wait for the token's known end (the PDS gives it TOKEN_SECONDS of life).
    while (Instant.now().isBefore(s.expiresAt().plusSeconds(2))) {
      Thread.sleep(250);
    }
    c.putRecord(a.did(), "dev.knotless.ref", "main", ref("main"), Swap.none());
    assertEquals(1, saved.size(), "refreshed once");
    assertEquals(401, statuses.get(0), "the PDS refused the expired token first: " + statuses);
    assertEquals(200, statuses.get(statuses.size() - 1), statuses.toString());
  }

  @Test
  void concurrentCallersShareOneRefresh() throws Exception {
    Account a = pds.createAccount("shared");
    OAuthSession s = login(a, KnotlessScopes.requested());
    List<OAuthSession> saved = new CopyOnWriteArrayList<>();
    XrpcClient c =
        clientOf(s, ahead(Duration.ofSeconds(TOKEN_SECONDS - 1)), saved, XrpcObserver.NONE);
    int n = 8;
    ExecutorService pool = Executors.newFixedThreadPool(n);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> writes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String key = "b" + i;
      writes.add(
          pool.submit(
              () -> {
                go.await();
                return c.putRecord(a.did(), "dev.knotless.ref", key, ref(key), Swap.none());
              }));
    }
    go.countDown();
    for (Future<?> w : writes) {
      w.get(); // a second refresh would spend a retired token and fail a write
    }
    pool.shutdown();
    // The offset clock keeps every token "near its end", so each later call refreshes again; but
    // the eight at once shared the first.
    assertTrue(saved.size() < n, "refreshes: " + saved.size());
    assertEquals(saved.stream().map(OAuthSession::refreshToken).distinct().count(), saved.size());
  }

  @Test
  void logoutRevokesTheSessionAndThePdsRefusesItsTokensAfter() throws Exception {
    Account a = pds.createAccount("logout");
    OAuthSession s = login(a, KnotlessScopes.requested());
    XrpcClient c = clientOf(s, new ArrayList<>());
    c.putRecord(a.did(), "dev.knotless.ref", "main", ref("main"), Swap.none());
    OAuthClient.fromEnvironment(env).revoke(s);
    XrpcException refused =
        assertThrows(
            XrpcException.class,
            () -> c.putRecord(a.did(), "dev.knotless.ref", "two", ref("two"), Swap.none()));
    assertEquals(XrpcException.Kind.AUTH, refused.kind(), refused.getMessage());
    assertTrue(refused.getMessage().contains("log in again"), refused.getMessage());
    OAuthException noRefresh =
        assertThrows(OAuthException.class, () -> OAuthClient.fromEnvironment(env).refresh(s));
    assertTrue(noRefresh.loginAgain(), noRefresh.getMessage());
  }

  @Test
  void aStaleNonceIsAnsweredByProvingAgainWithTheServersNew() throws Exception {
    Account a = pds.createAccount("nonce");
    OAuthSession s = login(a, KnotlessScopes.requested());
    List<Integer> statuses = new CopyOnWriteArrayList<>();
    XrpcClient c =
        clientOf(s, Clock.systemUTC(), new ArrayList<>(), (m, st, ns) -> statuses.add(st));
    s.dpop().nonce(s.pds(), "a-nonce-the-server-never-gave");
    c.putRecord(a.did(), "dev.knotless.ref", "main", ref("main"), Swap.none());
    assertEquals(List.of(401, 200), statuses, "refused for the nonce, then proved again");
    assertNotEquals("a-nonce-the-server-never-gave", s.dpop().nonceFor(s.pds()));
  }

  @Test
  void aSessionGrantedLessThanKnotlessNeedsIsToldToLogInAgain() throws Exception {
    Account a = pds.createAccount("narrow");
    OAuthSession s = login(a, "atproto repo:dev.knotless.ref");
    assertEquals(List.of("atproto", "repo:dev.knotless.ref"), List.of(s.scope().split(" ")));
    OAuthException told =
        assertThrows(OAuthException.class, () -> KnotlessScopes.requireForWrites(s));
    assertTrue(told.loginAgain());
    assertTrue(told.getMessage().contains("repo:dev.knotless.pack"), told.getMessage());
    assertTrue(told.getMessage().contains("log in again"), told.getMessage());
    // And the PDS itself holds the session to what it was granted.
    XrpcClient c = clientOf(s, new ArrayList<>());
    c.putRecord(a.did(), "dev.knotless.ref", "main", ref("main"), Swap.none());
    XrpcException outside =
        assertThrows(
            XrpcException.class,
            () -> c.putRecord(a.did(), "dev.knotless.pack", "p", ref("p"), Swap.none()));
    assertEquals(403, outside.status(), outside.getMessage());
  }

  @Test
  void aRefusedConsentEndsTheLoginSayingSo() throws Exception {
    Account a = pds.createAccount("refuse");
    OAuthClient client = OAuthClient.fromEnvironment(env);
    try (LoopbackRedirect redirect = LoopbackRedirect.start()) {
      OAuthClient.Pending p =
          client.begin(resolve(a.handle()), redirect.uri(), KnotlessScopes.requested());
      browser.refuse(p.authorizeUrl(), a.password(), redirect.uri().toString());
      OAuthException e =
          assertThrows(
              OAuthException.class,
              () -> client.complete(p, redirect.await(Duration.ofSeconds(30))));
      assertEquals("access_denied", e.error());
      assertTrue(e.getMessage().contains("refused"), e.getMessage());
    }
  }

  @Test
  void aRedirectWithAnotherStateOrIssuerIsRefusedBeforeAnyTokenIsAsked() throws Exception {
    Account a = pds.createAccount("state");
    OAuthClient client = OAuthClient.fromEnvironment(env);
    try (LoopbackRedirect redirect = LoopbackRedirect.start()) {
      OAuthClient.Pending p =
          client.begin(resolve(a.handle()), redirect.uri(), KnotlessScopes.requested());
      browser.consent(p.authorizeUrl(), a.password(), redirect.uri().toString());
      Map<String, String> real = redirect.await(Duration.ofSeconds(30));
      Map<String, String> forged = new HashMap<>(real);
      forged.put("state", "someone-elses");
      OAuthException state = assertThrows(OAuthException.class, () -> client.complete(p, forged));
      assertEquals("state_mismatch", state.error(), state.getMessage());
      Map<String, String> otherIssuer = new HashMap<>(real);
      otherIssuer.put("iss", "https://evil.example");
      OAuthException iss =
          assertThrows(OAuthException.class, () -> client.complete(p, otherIssuer));
      assertTrue(iss.getMessage().contains("https://evil.example"), iss.getMessage());
      // The real answer still works: nothing above spent the code.
      assertEquals(a.did(), client.complete(p, real).did());
    }
  }

  @Test
  void aPdsWithoutOAuthOrOutOfReachIsNamedAsTheCause() throws Exception {
    OAuthClient client = OAuthClient.fromEnvironment(env);
    try (LoopbackRedirect plain = LoopbackRedirect.start()) {
      // A server that answers 404 to every metadata address: no OAuth there.
      java.net.URI root = java.net.URI.create("http://127.0.0.1:" + plain.uri().getPort());
      OAuthException none =
          assertThrows(
              OAuthException.class,
              () ->
                  client.begin(
                      new Identity("did:plc:aaaaaaaaaaaaaaaaaaaaaaaa", "x.test", root),
                      plain.uri(),
                      KnotlessScopes.requested()));
      assertTrue(none.getMessage().contains("offers no OAuth login"), none.getMessage());
      assertTrue(none.getMessage().contains("app password"), none.getMessage());
    }
    java.net.URI closed = java.net.URI.create("http://127.0.0.1:9");
    OAuthException unreachable =
        assertThrows(
            OAuthException.class,
            () ->
                client.begin(
                    new Identity("did:plc:aaaaaaaaaaaaaaaaaaaaaaaa", "x.test", closed),
                    closed,
                    KnotlessScopes.requested()));
    assertTrue(unreachable.getMessage().contains("could not reach"), unreachable.getMessage());
  }

  @Test
  void anAuthorizationServerRefusingTheRequestIsReportedWithItsReason() throws Exception {
    Account a = pds.createAccount("badscope");
    OAuthClient client = OAuthClient.fromEnvironment(env);
    try (LoopbackRedirect redirect = LoopbackRedirect.start()) {
      OAuthException e =
          assertThrows(
              OAuthException.class,
              () -> client.begin(resolve(a.handle()), redirect.uri(), "repo:dev.knotless.ref"));
      assertTrue(e.getMessage().contains("refused"), e.getMessage());
      assertTrue(e.error() != null && e.error().startsWith("invalid"), e.getMessage());
    }
  }

  @Test
  void twoProcessesSharingASavedSessionNeverSpendOneRefreshTokenTwice() throws Exception {
    Account a = pds.createAccount("twoproc");
    OAuthSession s = login(a, KnotlessScopes.requested());
    dev.knotless.atproto.cache.SessionStore store =
        new dev.knotless.atproto.cache.SessionStore(Files.createTempDirectory("oauth-config"));
    store.writeLogin(s.did(), s.toJson());
    // Two clients that know nothing of each other but the file, as a push and a command beside
    // it; each sees its token near its end on every call, so they refresh over and over.
    List<XrpcClient> clients = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      XrpcClient c = XrpcClient.create(s.pds());
      c.resume(
          new OAuthTokens(
              OAuthSession.fromJson(store.read(s.did()).orElseThrow()),
              OAuthClient.fromEnvironment(env),
              ahead(Duration.ofSeconds(TOKEN_SECONDS - 1)),
              () -> OAuthLogins.saved(store, s.did()),
              fresh -> store.write(fresh.did(), fresh.toJson()),
              work -> store.exclusively(work::run)));
      clients.add(c);
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> writes = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      XrpcClient c = clients.get(i % 2);
      String key = "p" + i;
      writes.add(
          pool.submit(() -> c.putRecord(a.did(), "dev.knotless.ref", key, ref(key), Swap.none())));
    }
    for (Future<?> w : writes) {
      w.get(); // a replayed refresh token would end the session and fail the writes after it
    }
    pool.shutdown();
    // The session is still alive at the server: the saved one refreshes.
    OAuthSession last = OAuthLogins.saved(store, s.did()).orElseThrow();
    assertNotEquals(s.refreshToken(), last.refreshToken());
    assertEquals(a.did(), OAuthClient.fromEnvironment(env).refresh(last).did());
  }
}
