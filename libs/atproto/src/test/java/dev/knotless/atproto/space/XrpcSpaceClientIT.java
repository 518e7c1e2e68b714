package dev.knotless.atproto.space;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.atproto.Session;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.XrpcObserver;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The space client against a scripted host on 127.0.0.1 (which also plays the caller's PDS, minting
 * service tokens): what it sends, and how it takes refusals and hostile replies.
 */
class XrpcSpaceClientIT {
  private static final String ME = "did:plc:memberaaaaaaaaaaaaaaaaaa";
  private static final String OWNER = "did:plc:owneraaaaaaaaaaaaaaaaaaa";
  private static final SpaceId SPACE = new SpaceId(OWNER, "secret");

  private HttpServer server;
  private final Map<String, Reply> replies = new ConcurrentHashMap<>();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final AtomicInteger credentialsGiven = new AtomicInteger();
  private SpaceClient client;

  private record Reply(int status, byte[] body) {}

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::answer);
    server.start();
    URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    HttpClient http = HttpClient.newHttpClient();
    XrpcClient host =
        XrpcClient.create(url, http, XrpcObserver.NONE, ServiceAddresses.allowingLoopback());
    XrpcClient self =
        XrpcClient.create(url, http, XrpcObserver.NONE, ServiceAddresses.allowingLoopback());
    self.resume(new Session(ME, "member.test", jwt(), jwt()));
    client = new XrpcSpaceClient(host, self, Clock.systemUTC());
    json("com.atproto.server.describeServer", 200, "{\"did\":\"did:web:spaces.test\"}");
    json("com.atproto.server.getServiceAuth", 200, "{\"token\":\"svc\"}");
    json(
        "com.atproto.space.getCredential",
        200,
        "{\"credential\":\"cred1\",\"expiresAt\":\"" + Instant.now().plusSeconds(3600) + "\"}");
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static String jwt() {
    Base64.Encoder b = Base64.getUrlEncoder().withoutPadding();
    String claims = "{\"exp\":" + Instant.now().plusSeconds(7200).getEpochSecond() + "}";
    return b.encodeToString("{}".getBytes(StandardCharsets.UTF_8))
        + "."
        + b.encodeToString(claims.getBytes(StandardCharsets.UTF_8))
        + ".sig";
  }

  private void json(String method, int status, String body) {
    replies.put(method, new Reply(status, body.getBytes(StandardCharsets.UTF_8)));
  }

  private void answer(HttpExchange ex) throws IOException {
    try (ex) {
      String method = ex.getRequestURI().getPath().substring("/xrpc/".length());
      seen.add(method + " " + ex.getRequestHeaders().getFirst("Authorization"));
      if (method.equals("com.atproto.space.getCredential")) {
        credentialsGiven.incrementAndGet();
      }
      Reply r = replies.getOrDefault(method, new Reply(501, "{}".getBytes()));
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(r.status(), r.body().length);
      try (OutputStream o = ex.getResponseBody()) {
        o.write(r.body());
      }
    }
  }

  @Test
  void aRecordCallCarriesTheSpaceCredentialGotOnceWithAServiceToken() throws Exception {
    json(
        "com.atproto.space.getRecord",
        200,
        "{\"uri\":\"at://" + OWNER + "/dev.knotless.repo/secret\",\"value\":{\"key\":\"k\"}}");
    Optional<Record> r = client.getRecord(SPACE, OWNER, "dev.knotless.repo", "secret");
    assertEquals("k", r.orElseThrow().value().path("key").asText());
    client.getRecord(SPACE, OWNER, "dev.knotless.repo", "secret");
    assertEquals(1, credentialsGiven.get(), "one credential serves every call");
    assertTrue(seen.contains("com.atproto.space.getCredential Bearer svc"), seen.toString());
    assertTrue(seen.contains("com.atproto.space.getRecord Bearer cred1"), seen.toString());
  }

  @Test
  void aServiceTokenRefusedToTheLoginSaysToLogInWithOAuthAndATokenGoneBadDoesNot()
      throws Exception {
    json(
        "com.atproto.server.getServiceAuth",
        403,
        "{\"error\":\"AppPasswordSpaceRefused\",\"message\":\"not for app passwords\"}");
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> client.getRecord(SPACE, OWNER, "dev.knotless.repo", "secret"));
    assertTrue(SpaceErrors.loginRefused(e), e.getMessage());
    assertEquals("com.atproto.space.getCredential", e.method());
    assertTrue(e.getMessage().contains("(not for app passwords)"), e.getMessage());
    assertTrue(
        e.getMessage().contains("an app password reads no private repository; log in with OAuth"),
        e.getMessage());
    assertEquals(0, credentialsGiven.get(), "the host was never asked");
    // A 401 is a token gone bad (here the refresh it leads to fails too), not the kind of login.
    json("com.atproto.server.getServiceAuth", 401, "{\"error\":\"ExpiredToken\"}");
    XrpcException stale = assertThrows(XrpcException.class, () -> client.createSpace("other"));
    assertFalse(SpaceErrors.loginRefused(stale), stale.getMessage());
    assertFalse(stale.getMessage().contains("log in with OAuth"), stale.getMessage());
  }

  @Test
  void aMissingRecordIsEmptyButANonMemberIsARefusalNamingItsCause() throws Exception {
    json("com.atproto.space.getRecord", 400, "{\"error\":\"RecordNotFound\",\"message\":\"no\"}");
    assertEquals(Optional.empty(), client.getRecord(SPACE, OWNER, "dev.knotless.repo", "x"));
    json(
        "com.atproto.space.getCredential",
        403,
        "{\"error\":\"NotMember\",\"message\":\"" + ME + " is not a member\"}");
    SpaceClient fresh = freshClient();
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> fresh.getRecord(SPACE, OWNER, "dev.knotless.repo", "secret"));
    assertTrue(SpaceErrors.notMember(e), e.getMessage());
    assertTrue(e.getMessage().contains("is not a member"), e.getMessage());
  }

  @Test
  void anExpiredCredentialIsReplacedOnceAndThenTheRefusalStands() throws Exception {
    json("com.atproto.space.getRecord", 401, "{\"error\":\"ExpiredCredential\"}");
    XrpcException e =
        assertThrows(
            XrpcException.class, () -> client.getRecord(SPACE, OWNER, "dev.knotless.repo", "x"));
    assertEquals("ExpiredCredential", e.error());
    assertEquals(2, credentialsGiven.get(), "asked afresh once, not in a loop");
  }

  @Test
  void aRecordOfAnotherRepoOrCollectionIsRefused() {
    json(
        "com.atproto.space.getRecord",
        200,
        "{\"uri\":\"at://did:plc:someoneelseaaaaaaaaaaaaa/dev.knotless.repo/secret\","
            + "\"value\":{}}");
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> client.getRecord(SPACE, OWNER, "dev.knotless.repo", "secret"));
    assertTrue(e.getMessage().contains("another repo"), e.getMessage());
    json(
        "com.atproto.space.listRecords",
        200,
        "{\"records\":[{\"uri\":\"at://" + OWNER + "/dev.knotless.pack/a\",\"value\":{}}]}");
    assertThrows(
        XrpcException.class,
        () -> client.listRecords(SPACE, OWNER, "dev.knotless.ref", 10, null, false));
    json("com.atproto.space.listRecords", 200, "{\"records\":[{\"uri\":\"nonsense\"}]}");
    assertThrows(
        XrpcException.class,
        () -> client.listRecords(SPACE, OWNER, "dev.knotless.ref", 10, null, false));
  }

  @Test
  void aPageLongerThanAskedIsRefused() {
    StringBuilder b = new StringBuilder("{\"records\":[");
    for (int i = 0; i < 3; i++) {
      b.append(i == 0 ? "" : ",")
          .append("{\"uri\":\"at://" + OWNER + "/dev.knotless.ref/k" + i + "\",\"value\":{}}");
    }
    json("com.atproto.space.listRecords", 200, b.append("]}").toString());
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> client.listRecords(SPACE, OWNER, "dev.knotless.ref", 2, null, false));
    assertTrue(e.getMessage().contains("3 records for a page of 2"), e.getMessage());
  }

  @Test
  void aCredentialThatWouldNotFitAHeaderIsRefusedAndNeverSent() {
    json(
        "com.atproto.space.getCredential",
        200,
        "{\"credential\":\"a\\r\\nX-Evil: 1\",\"expiresAt\":\""
            + Instant.now().plusSeconds(60)
            + "\"}");
    XrpcException e =
        assertThrows(
            XrpcException.class, () -> client.getRecord(SPACE, OWNER, "dev.knotless.repo", "x"));
    assertTrue(e.getMessage().contains("usable credential"), e.getMessage());
    assertFalse(seen.stream().anyMatch(s -> s.startsWith("com.atproto.space.getRecord")));
    json("com.atproto.space.getCredential", 200, "{\"credential\":\"ok\"}");
    assertThrows(
        XrpcException.class, () -> client.getRecord(SPACE, OWNER, "dev.knotless.repo", "x"));
  }

  @Test
  void aBlobReplyOfAnotherSizeThanSentIsRefused() {
    json(
        "com.atproto.space.uploadBlob",
        200,
        "{\"blob\":{\"$type\":\"blob\",\"ref\":{\"$link\":\"bafk\"},\"mimeType\":\"x\",\"size\":1}}");
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () -> client.uploadBlob(SPACE, new byte[] {1, 2, 3}, "application/octet-stream"));
    assertTrue(e.getMessage().contains("says 1 bytes of 3 sent"), e.getMessage());
    json("com.atproto.space.uploadBlob", 200, "{\"blob\":{}}");
    assertThrows(XrpcException.class, () -> client.uploadBlob(SPACE, new byte[] {1}, "x"));
  }

  @Test
  void aBlobLongerThanItsReferenceIsCutOff() {
    replies.put("com.atproto.space.getBlob", new Reply(200, new byte[64]));
    assertThrows(XrpcException.class, () -> client.getBlob(SPACE, OWNER, "bafk", 10));
    replies.put("com.atproto.space.getBlob", new Reply(200, new byte[] {7, 8}));
    assertArrayEquals(new byte[] {7, 8}, assertDoesNotThrow(SPACE));
  }

  private byte[] assertDoesNotThrow(SpaceId space) {
    try {
      return client.getBlob(space, OWNER, "bafk", 10);
    } catch (XrpcException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void registerNotifyCarriesTheCredentialAndRefusesAnEndThatIsPastOrMissing() throws Exception {
    Instant until =
        Instant.now().plusSeconds(86_400).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    json("com.atproto.space.registerNotify", 200, "{\"expiresAt\":\"" + until + "\"}");
    assertEquals(until, client.registerNotify(SPACE, "did:plc:appview#knotless_appview"));
    assertTrue(seen.contains("com.atproto.space.registerNotify Bearer cred1"), seen.toString());
    json("com.atproto.space.registerNotify", 200, "{\"expiresAt\":\"2001-01-01T00:00:00Z\"}");
    XrpcException past =
        assertThrows(
            XrpcException.class,
            () -> client.registerNotify(SPACE, "did:plc:appview#knotless_appview"));
    assertTrue(past.getMessage().contains("no expiresAt time ahead"), past.getMessage());
    json("com.atproto.space.registerNotify", 200, "{}");
    assertThrows(
        XrpcException.class,
        () -> client.registerNotify(SPACE, "did:plc:appview#knotless_appview"));
  }

  @Test
  void listReposRefusesAMemberThatIsNotADidOrHasNoRevision() throws Exception {
    json(
        "com.atproto.space.listRepos",
        200,
        "{\"repos\":[{\"did\":\"" + OWNER + "\",\"rev\":\"7\"}],\"cursor\":\"7\"}");
    SpaceRepos r = client.listRepos(SPACE, "3");
    assertEquals(List.of(new SpaceRepos.Repo(OWNER, "7")), r.repos());
    assertEquals("7", r.cursor());
    json(
        "com.atproto.space.listRepos",
        200,
        "{\"repos\":[{\"did\":\"javascript:x\",\"rev\":\"7\"}]}");
    assertThrows(XrpcException.class, () -> client.listRepos(SPACE, "3"));
    json("com.atproto.space.listRepos", 200, "{\"repos\":[{\"did\":\"" + OWNER + "\"}]}");
    assertThrows(XrpcException.class, () -> client.listRepos(SPACE, "3"));
  }

  @Test
  void applyWritesWithTooFewResultsAndACreateForAnotherSpaceAreRefused() {
    json("com.atproto.space.applyWrites", 200, "{\"results\":[]}");
    XrpcException e =
        assertThrows(
            XrpcException.class,
            () ->
                client.applyWrites(
                    SPACE, List.of(Write.create("dev.knotless.ref", "k", Json.object()))));
    assertTrue(e.getMessage().contains("0 results for 1 writes"), e.getMessage());
    json("com.atproto.space.createSpace", 200, "{\"space\":\"" + OWNER + "/secret\"}");
    XrpcException other = assertThrows(XrpcException.class, () -> client.createSpace("secret"));
    assertTrue(other.getMessage().contains("another space"), other.getMessage());
  }

  @Test
  void ownedSpacesRefusesASpaceOfAnotherAccountOrNoSpaceAtAll() throws Exception {
    json("com.atproto.space.listSpaces", 200, "{\"spaces\":[\"" + ME + "/box\"]}");
    assertEquals(List.of(new SpaceId(ME, "box")), client.ownedSpaces());
    json("com.atproto.space.listSpaces", 200, "{\"spaces\":[\"" + OWNER + "/box\"]}");
    XrpcException e = assertThrows(XrpcException.class, () -> client.ownedSpaces());
    assertTrue(e.getMessage().contains("another account"), e.getMessage());
    json("com.atproto.space.listSpaces", 200, "{\"spaces\":[\"../../etc\"]}");
    assertThrows(XrpcException.class, () -> client.ownedSpaces());
  }

  private SpaceClient freshClient() {
    URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    HttpClient http = HttpClient.newHttpClient();
    XrpcClient self =
        XrpcClient.create(url, http, XrpcObserver.NONE, ServiceAddresses.allowingLoopback());
    self.resume(new Session(ME, "member.test", jwt(), jwt()));
    return new XrpcSpaceClient(
        XrpcClient.create(url, http, XrpcObserver.NONE, ServiceAddresses.allowingLoopback()),
        self,
        Clock.systemUTC());
  }
}
