package dev.knotless.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

@WithPds
class PdsExtensionIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private final PdsInstance fromConstructor;

  PdsExtensionIT(PdsInstance pds) {
    this.fromConstructor = pds;
  }

  @Test
  void describeServerAnswersWithTheTestDomainAndTheBlobLimit(PdsInstance pds) throws Exception {
    HttpResponse<String> response = get(pds.pdsUrl(), "com.atproto.server.describeServer");

    assertEquals(200, response.statusCode(), response.body());
    JsonNode body = JSON.readTree(response.body());
    assertEquals(".test", body.path("availableUserDomains").path(0).asText());
    assertEquals(5_242_880, body.path("blobUploadLimit").asLong());
    assertEquals(5_242_880, pds.blobUploadLimit());
    assertEquals("127.0.0.1", pds.pdsUrl().getHost());
    assertEquals("127.0.0.1", pds.plcUrl().getHost());
  }

  @Test
  void constructorAndMethodsShareOneServer(PdsInstance pds) {
    assertSame(fromConstructor, pds);
  }

  @Test
  void aFreshAccountLogsInAndAWrongPasswordIsRefused(PdsInstance pds) throws Exception {
    Account account = pds.createAccount("fresh");

    HttpResponse<String> ok = createSession(pds.pdsUrl(), account.handle(), account.password());
    assertEquals(200, ok.statusCode(), ok.body());
    assertEquals(account.did(), JSON.readTree(ok.body()).path("did").asText());
    assertTrue(account.handle().matches("fresh\\d+\\.test"), account.handle());

    HttpResponse<String> refused = createSession(pds.pdsUrl(), account.handle(), "not-it");
    assertEquals(401, refused.statusCode());
  }

  @Test
  void freshAccountsAreDistinct(PdsInstance pds) {
    Account one = pds.createAccount("twin");
    Account two = pds.createAccount("twin");

    assertNotEquals(one.handle(), two.handle());
    assertNotEquals(one.did(), two.did());
  }

  @Test
  void theStartAccountsLogIn(PdsInstance pds) throws Exception {
    Account alice = pds.account("alice");

    assertEquals("alice.test", alice.handle());
    assertEquals(200, createSession(pds.pdsUrl(), "alice.test", alice.password()).statusCode());
    assertSame(alice, pds.account("alice.test"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> pds.account("carol"));
    assertTrue(e.getMessage().contains("no account carol"), e.getMessage());
  }

  @Test
  void aPrefixThePdsCannotTakeIsRefusedBeforeAnyCall(PdsInstance pds) {
    IllegalArgumentException upper =
        assertThrows(IllegalArgumentException.class, () -> pds.createAccount("Bad"));
    assertTrue(upper.getMessage().contains("\"Bad\""), upper.getMessage());
    IllegalArgumentException tooLong =
        assertThrows(
            IllegalArgumentException.class, () -> pds.createAccount("abcdefghijklmnopqrstu"));
    assertTrue(tooLong.getMessage().contains("too long"), tooLong.getMessage());
  }

  @Test
  void theEnvironmentNamesThePlcAndTheHandleResolver(PdsInstance pds) {
    assertEquals(pds.plcUrl().toString(), pds.environment().get("KNOTLESS_PLC_URL"));
    assertEquals(pds.pdsUrl().toString(), pds.environment().get("KNOTLESS_HANDLE_RESOLVER"));
  }

  @Test
  void aServerOfItsOwnTakesItsOptionsAndIsGoneAfterClose() throws Exception {
    PdsInstance own = PdsInstance.start(PdsOptions.defaults().withBlobUploadLimit(1024));
    long pid = own.pid();
    URI url = own.pdsUrl();
    try {
      assertTrue(own.isAlive());
      JsonNode description = JSON.readTree(get(url, "com.atproto.server.describeServer").body());
      assertEquals(1024, description.path("blobUploadLimit").asLong());
      assertEquals(1024, own.blobUploadLimit());
    } finally {
      own.close();
    }

    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    assertFalse(own.isAlive());
    assertThrows(ConnectException.class, () -> get(url, "com.atproto.server.describeServer"));
    own.close(); // a second close is harmless
  }

  static HttpResponse<String> get(URI pds, String nsid) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(pds.resolve("/xrpc/" + nsid))
            .timeout(Duration.ofSeconds(30))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> createSession(URI pds, String identifier, String password)
      throws IOException, InterruptedException {
    String body =
        JSON.createObjectNode().put("identifier", identifier).put("password", password).toString();
    return HTTP.send(
        HttpRequest.newBuilder(pds.resolve("/xrpc/com.atproto.server.createSession"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
