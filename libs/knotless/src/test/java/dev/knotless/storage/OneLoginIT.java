package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.cache.CacheFile;
import dev.knotless.atproto.cache.LocalCache;
import dev.knotless.atproto.cache.SessionStore;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One login for every process: plain {@code git push} with {@code KNOTLESS_IDENTIFIER} and {@code
 * KNOTLESS_PASSWORD}, counted at a proxy in front of the real PDS, background compaction included.
 */
@WithPds
class OneLoginIT {
  /** As in RoundTripsIT: reads sent together must overlap at the proxy to count as one trip. */
  private static final Duration LATENCY = Duration.ofMillis(250);

  private static final String CREATE_SESSION = "com.atproto.server.createSession";
  private static final String REFRESH_SESSION = "com.atproto.server.refreshSession";

  @Test
  void aWarmGitPushWithEnvCredentialsIsTwoRoundTripsWithNoLoginAndTheCompactionCheckInside(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("one");
    GitUser me = new GitUser(pds, owner, tmp.resolve("me")).with("KNOTLESS_COMPACT", "background");
    String url = "knotless://" + owner.handle() + "/counted";
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    me.ok(a, "push", "-q", url, "main");
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl(), LATENCY)) {
      throughProxy(tmp.resolve("me/cache"), proxy.url());
      String second = me.commit(a, "b.txt", "b\n");
      proxy.reset();
      me.ok(a, "push", "-q", url, "main");
      awaitCompactions(url);
      Map<String, Integer> calls = proxy.byMethod();
      assertEquals(0, proxy.requests(CREATE_SESSION), "no login: " + calls);
      assertEquals(1, proxy.requests("com.atproto.repo.applyWrites"), "one write: " + calls);
      assertEquals(2, proxy.roundTrips(), "a warm push, compaction's check included: " + calls);
      // The snapshot (repo record and refs), then the write beside the compaction's pack count.
      assertEquals(4, proxy.requests(), "requests: " + calls);
      assertTrue(me.ok(a, "ls-remote", url).contains(second + "\trefs/heads/main"));
    }
    assertNoFileHolds(tmp.resolve("me"), owner.password());
  }

  @Test
  void aDueCompactionInTheBackgroundReusesTheSavedSession(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("due");
    GitUser me =
        new GitUser(pds, owner, tmp.resolve("me"))
            .with("KNOTLESS_COMPACT", "background")
            .with("KNOTLESS_COMPACT_THRESHOLD", "2");
    String url = "knotless://" + owner.handle() + "/folded";
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    me.ok(a, "push", "-q", url, "main");
    awaitCompactions(url);
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      throughProxy(tmp.resolve("me/cache"), proxy.url());
      me.commit(a, "b.txt", "b\n");
      proxy.reset();
      me.ok(a, "push", "-q", url, "main");
      int started = awaitCompactions(url);
      assertEquals(1, started, "the second pack makes a compaction due");
      assertTrue(
          proxy.requests("com.atproto.repo.getRecord") >= 2,
          "the compaction ran and read the snapshot: " + proxy.byMethod());
      assertEquals(0, proxy.requests(CREATE_SESSION), "no login anywhere: " + proxy.byMethod());
    }
    assertNoFileHolds(tmp.resolve("me"), owner.password());
  }

  @Test
  void anExpiredSessionIsRefreshedAndSavedAndARevokedOneLogsInAgainFromTheEnvironment(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("fresh");
    GitUser me = new GitUser(pds, owner, tmp.resolve("me"));
    String url = "knotless://" + owner.handle() + "/refreshed";
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    me.ok(a, "push", "-q", url, "main");
    SessionStore sessions = new SessionStore(tmp.resolve("me/config"));
    ObjectNode saved = sessions.read(owner.did()).orElseThrow();
    assertEquals(owner.handle(), saved.path("identifier").asText());

    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      throughProxy(tmp.resolve("me/cache"), proxy.url());
      // An access token past its expiry: the push refreshes before writing, and saves the result.
      String expired = jwtExpiredAt(1);
      sessions.write(owner.did(), saved.deepCopy().put("accessJwt", expired));
      me.commit(a, "b.txt", "b\n");
      proxy.reset();
      me.ok(a, "push", "-q", url, "main");
      assertEquals(1, proxy.requests(REFRESH_SESSION), proxy.byMethod().toString());
      assertEquals(0, proxy.requests(CREATE_SESSION), proxy.byMethod().toString());
      ObjectNode refreshed = sessions.read(owner.did()).orElseThrow();
      assertNotEquals(expired, refreshed.path("accessJwt").asText());
      assertNotEquals(saved.path("refreshJwt").asText(), refreshed.path("refreshJwt").asText());

      // The refresh token revoked on the PDS: without a password the push says to log in again.
      revoke(pds.pdsUrl(), refreshed.path("refreshJwt").asText());
      sessions.write(owner.did(), refreshed.deepCopy().put("accessJwt", expired));
      me.commit(a, "c.txt", "c\n");
      GitUser noPassword = new GitUser(pds, null, tmp.resolve("me"));
      String refused = noPassword.fails(a, "push", url, "main");
      assertTrue(refused.contains("knotless login"), refused);

      // With KNOTLESS_PASSWORD, the refused refresh logs in again, once, and the push lands.
      proxy.reset();
      me.ok(a, "push", "-q", url, "main");
      assertEquals(1, proxy.requests(CREATE_SESSION), proxy.byMethod().toString());
      JsonNode relogged = sessions.read(owner.did()).orElseThrow();
      assertNotEquals(refreshed.path("refreshJwt").asText(), relogged.path("refreshJwt").asText());
      proxy.reset();
      me.commit(a, "d.txt", "d\n");
      me.ok(a, "push", "-q", url, "main");
      assertEquals(
          0, proxy.requests(CREATE_SESSION), "the new session is kept: " + proxy.byMethod());
    }
    assertNoFileHolds(tmp.resolve("me"), owner.password());
  }

  /** Points every cached identity at the proxy, so the helper's calls all pass through it. */
  static void throughProxy(Path cacheDir, URI proxy) {
    LocalCache cache = new LocalCache(cacheDir, Clock.systemUTC());
    for (Map.Entry<String, JsonNode> e : cache.entries(CacheFile.IDENTITY).entrySet()) {
      ObjectNode v = ((ObjectNode) e.getValue()).deepCopy();
      v.put("pds", proxy.toString());
      cache.put(CacheFile.IDENTITY, e.getKey(), v);
    }
    assertFalse(cache.entries(CacheFile.IDENTITY).isEmpty(), "no identity was cached");
  }

  /**
   * Waits for every background compaction of {@code url} to end, and returns how many there were.
   * The helper starts one before it exits, and git waits for the helper, so any there is exists by
   * the time the push returns.
   */
  static int awaitCompactions(String url) throws Exception {
    List<ProcessHandle> running =
        ProcessHandle.allProcesses()
            .filter(
                p -> {
                  List<String> args = List.of(p.info().arguments().orElse(new String[0]));
                  return args.contains(dev.knotless.storage.cli.CompactMain.class.getName())
                      && args.contains(url);
                })
            .toList();
    for (ProcessHandle p : running) {
      p.onExit().get(120, TimeUnit.SECONDS);
    }
    return running.size();
  }

  /** A JWT-shaped token whose {@code exp} is {@code epochSeconds}; the PDS never accepts it. */
  static String jwtExpiredAt(long epochSeconds) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    String header = b64.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8));
    String claims =
        b64.encodeToString(("{\"exp\":" + epochSeconds + "}").getBytes(StandardCharsets.UTF_8));
    return header + "." + claims + ".x";
  }

  /** {@code com.atproto.server.deleteSession}: the PDS refuses that refresh token from now on. */
  static void revoke(URI pds, String refreshJwt) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(pds.resolve("/xrpc/com.atproto.server.deleteSession"))
                .header("Authorization", "Bearer " + refreshJwt)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
  }

  static void assertNoFileHolds(Path home, String password) throws Exception {
    try (var files = Files.walk(home)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertFalse(
            new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(password),
            "the app password is kept nowhere: " + f);
      }
    }
  }
}
