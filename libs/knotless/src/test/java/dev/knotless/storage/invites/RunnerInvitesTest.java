package dev.knotless.storage.invites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.knotless.atproto.XrpcClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The invites client against a scripted appview (which also signs the service tokens, standing in
 * for the caller's PDS): what it sends, and hostile pages refused or trimmed.
 */
class RunnerInvitesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String OWNER = "did:plc:ownerownerownerownerowne";

  private HttpServer server;
  private volatile String listReply = "{}";
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private RunnerInvites invites;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/xrpc/dev.knotless.describeServer", ex -> reply(ex, "{\"did\":\"did:web:appview.test\"}"));
    server.createContext(
        "/xrpc/com.atproto.server.getServiceAuth",
        ex -> {
          seen.add("token " + ex.getRequestURI().getRawQuery());
          reply(ex, "{\"token\":\"tok\"}");
        });
    server.createContext(
        "/xrpc/dev.knotless.inviteRunner",
        ex -> {
          seen.add(
              ex.getRequestHeaders().getFirst("Authorization")
                  + " "
                  + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          reply(ex, "{}");
        });
    server.createContext(
        "/xrpc/dev.knotless.listRunnerInvites",
        ex -> {
          seen.add("list " + ex.getRequestURI().getRawQuery());
          reply(ex, listReply);
        });
    server.start();
    URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    invites = new RunnerInvites(XrpcClient.create(url), XrpcClient.create(url));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static void reply(HttpExchange ex, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, b.length);
    try (OutputStream o = ex.getResponseBody()) {
      o.write(b);
    }
  }

  @Test
  void anInviteNamesTheRunnerAndTheRepositoryWithATokenForTheMethod() throws Exception {
    invites.invite(OWNER, "site", "did:plc:runner");
    assertTrue(seen.get(0).contains("lxm=dev.knotless.inviteRunner"), seen.toString());
    assertTrue(seen.get(0).contains("aud=did%3Aweb%3Aappview.test"), seen.toString());
    assertTrue(seen.get(1).startsWith("Bearer tok "), seen.toString());
    JsonNode body = JSON.readTree(seen.get(1).substring("Bearer tok ".length()));
    assertEquals("did:plc:runner", body.path("runner").asText());
    assertEquals(OWNER, body.path("did").asText());
    assertEquals("site", body.path("name").asText());
  }

  @Test
  void aPageAsksFromTheCursorAndLeavesOutInvitesNamingNoRepository() throws Exception {
    listReply =
        "{\"cursor\":\"9\",\"invites\":["
            + "{\"did\":\""
            + OWNER
            + "\",\"name\":\"site\",\"by\":\""
            + OWNER
            + "\"},"
            + "{\"did\":\""
            + OWNER
            + "\",\"name\":\"../etc\",\"by\":\""
            + OWNER
            + "\"},"
            + "{\"did\":\"nope\",\"name\":\"site\",\"by\":\""
            + OWNER
            + "\"},"
            + "{\"did\":\""
            + OWNER
            + "\",\"name\":\"site\",\"by\":\"x\\ny\"}]}";
    RunnerInvites.Page page = invites.page("4");
    assertEquals(List.of(new RunnerInvites.Invite(OWNER, "site", OWNER)), page.invites());
    assertEquals(3, page.refused());
    assertEquals("9", page.cursor());
    String asked = seen.stream().filter(s -> s.startsWith("list ")).findFirst().orElseThrow();
    assertTrue(asked.contains("cursor=4"), asked);
  }

  @Test
  void aPageWithoutAUsableCursorOrWithTooManyInvitesIsRefused() {
    listReply = "{\"invites\":[]}";
    assertThrows(IOException.class, () -> invites.page(null));
    listReply = "{\"cursor\":\"a\\nb\",\"invites\":[]}";
    assertThrows(IOException.class, () -> invites.page(null));
    listReply = "{\"cursor\":\"\",\"invites\":[]}";
    assertThrows(IOException.class, () -> invites.page(null));
    StringBuilder many = new StringBuilder("{\"cursor\":\"1\",\"invites\":[");
    for (int i = 0; i <= RunnerInvites.PAGE; i++) {
      many.append(i == 0 ? "" : ",").append("{\"did\":\"").append(OWNER).append("\"}");
    }
    listReply = many.append("]}").toString();
    assertThrows(IOException.class, () -> invites.page(null));
  }
}
