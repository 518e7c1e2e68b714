package dev.knotless.runner.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.atproto.XrpcObserver;
import dev.knotless.atproto.space.SpaceId;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpaceWritesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String s) throws Exception {
    return JSON.readTree(s.replace('\'', '"'));
  }

  private static String refusal(String reply) throws Exception {
    JsonNode n = json(reply);
    return assertThrows(XrpcException.class, () -> SpaceWrites.parse(n)).getMessage();
  }

  @Test
  void aReplyIsReadWithItsCursorMissedAndWrites() throws Exception {
    SpaceWrites.Reply r =
        SpaceWrites.parse(
            json(
                "{'cursor':'life.7','writes':[{'space':'did:plc:alice/site','repo':'did:plc:alice','rev':'7'}]}"));
    assertEquals("life.7", r.cursor());
    assertFalse(r.missed());
    assertEquals(
        List.of(new SpaceWrites.Write(new SpaceId("did:plc:alice", "site"), "did:plc:alice", "7")),
        r.writes());
    assertTrue(SpaceWrites.parse(json("{'cursor':'c','missed':true,'writes':[]}")).missed());
  }

  @Test
  void aMalformedReplyIsRefusedWhole() throws Exception {
    assertTrue(refusal("[]").contains("is not an object"));
    assertTrue(refusal("{'writes':[]}").contains("no usable cursor"));
    assertTrue(refusal("{'cursor':'a b','writes':[]}").contains("no usable cursor"));
    assertTrue(refusal("{'cursor':7,'writes':[]}").contains("no usable cursor"));
    assertTrue(refusal("{'cursor':'c'}").contains("no list of writes"));
    assertTrue(refusal("{'cursor':'c','missed':'yes','writes':[]}").contains("missed"));
    assertTrue(
        refusal("{'cursor':'c','writes':[{'space':'nowhere','repo':'did:plc:a'}]}")
            .contains("names a write in no space"));
    assertTrue(
        refusal("{'cursor':'c','writes':[{'space':'did:plc:a/x','repo':'alice'}]}")
            .contains("not a DID"));
    assertTrue(
        refusal("{'cursor':'c','writes':[{'space':'did:plc:a/x','repo':'did:plc:a\\u0007'}]}")
            .contains("not a DID"));
  }

  @Test
  void anOversizedReplyIsRefused() throws Exception {
    ObjectNode r = JSON.createObjectNode().put("cursor", "c");
    ArrayNode ws = r.putArray("writes");
    for (int i = 0; i <= SpaceWrites.MAX_WRITES; i++) {
      ws.addObject().put("space", "did:plc:a/x").put("repo", "did:plc:a");
    }
    String msg = assertThrows(XrpcException.class, () -> SpaceWrites.parse(r)).getMessage();
    assertTrue(msg.contains("has 101 writes, more than the 100 one may"), msg);
    assertTrue(
        refusal("{'cursor':'" + "c".repeat(SpaceWrites.MAX_CURSOR + 1) + "','writes':[]}")
            .contains("no usable cursor"));
  }

  @Test
  void aReplyOfMoreBytesThanAPageTakesIsRefusedAndTheTokenIsTheRunners() throws Exception {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    String[] auth = {null};
    http.createContext(
        "/xrpc/" + SpaceWrites.AWAIT,
        ex -> {
          auth[0] = ex.getRequestHeaders().getFirst("Authorization");
          byte[] body =
              ("{\"cursor\":\"c\",\"writes\":[],\"pad\":\""
                      + "x".repeat((int) SpaceWrites.MAX_REPLY_BYTES)
                      + "\"}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          try (ex;
              var o = ex.getResponseBody()) {
            o.write(body);
          }
        });
    http.start();
    try {
      XrpcClient client =
          XrpcClient.create(
              URI.create("http://127.0.0.1:" + http.getAddress().getPort()),
              HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(),
              XrpcObserver.NONE,
              ServiceAddresses.allowingLoopback());
      SpaceWrites writes = new SpaceWrites(client, () -> "service-token");
      assertThrows(java.io.IOException.class, () -> writes.await(null));
      assertEquals("Bearer service-token", auth[0]);
    } finally {
      http.stop(0);
    }
  }
}
