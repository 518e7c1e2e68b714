package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The harness appview's sealed secrets, in memory: {@code dev.knotless.putSecret}, {@code
 * deleteSecret} and {@code listSecrets}, as their lexicons say. Only the repository's owner (the
 * service token's issuer is the {@code did}) puts or deletes; the owner lists every secret of the
 * repository, a runner those sealed to it. It never opens a value, and keeps whatever an owner
 * sends, so a test can plant one where it does not belong ({@link #plant}) as a lying appview
 * would. Thread-safe.
 */
public final class AppviewSecretStore {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ServiceTokens tokens;
  // did \0 key \0 runner \0 name -> the secret's view
  private final Map<String, ObjectNode> byId = new ConcurrentSkipListMap<>();

  AppviewSecretStore(ServiceTokens tokens) {
    this.tokens = tokens;
  }

  /** Stores a view as given, unchecked: what an appview that lies would list. */
  public void plant(JsonNode view) {
    byId.put(id(view), (ObjectNode) view.deepCopy());
  }

  /** Every view stored, in key order. */
  public List<ObjectNode> all() {
    return byId.values().stream().map(ObjectNode::deepCopy).toList();
  }

  void put(HttpExchange ex) throws IOException {
    JsonNode body = JSON.readTree(ex.getRequestBody());
    String caller = caller(ex, "dev.knotless.putSecret");
    if (caller == null) {
      return;
    }
    for (String f : List.of("did", "key", "runner", "name", "recipient", "enc", "ciphertext")) {
      if (!body.path(f).isTextual() || body.path(f).asText().isEmpty()) {
        HarnessAppview.send(ex, 400, HarnessAppview.error("InvalidRequest", f + " is required"));
        return;
      }
    }
    if (!caller.equals(body.path("did").asText())) {
      HarnessAppview.send(
          ex, 403, HarnessAppview.error("Forbidden", "only the repository's owner seals to it"));
      return;
    }
    byId.put(id(body), (ObjectNode) body.deepCopy());
    HarnessAppview.send(ex, 200, JSON.createObjectNode());
  }

  void delete(HttpExchange ex) throws IOException {
    JsonNode body = JSON.readTree(ex.getRequestBody());
    String caller = caller(ex, "dev.knotless.deleteSecret");
    if (caller == null) {
      return;
    }
    if (!caller.equals(body.path("did").asText())) {
      HarnessAppview.send(
          ex, 403, HarnessAppview.error("Forbidden", "only the repository's owner removes one"));
      return;
    }
    boolean deleted = byId.remove(id(body)) != null;
    ObjectNode out = JSON.createObjectNode();
    out.put("deleted", deleted);
    HarnessAppview.send(ex, 200, out);
  }

  void list(HttpExchange ex) throws IOException {
    Map<String, String> q = HarnessAppview.params(ex.getRequestURI().getRawQuery());
    String caller = caller(ex, "dev.knotless.listSecrets");
    if (caller == null) {
      return;
    }
    String did = q.get("did");
    String key = q.get("key");
    if (did == null || key == null) {
      HarnessAppview.send(
          ex, 400, HarnessAppview.error("InvalidRequest", "did and key are required"));
      return;
    }
    String runner = q.get("runner");
    ObjectNode out = JSON.createObjectNode();
    ArrayNode list = out.putArray("secrets");
    for (ObjectNode v : byId.values()) {
      boolean mine = caller.equals(did) || caller.equals(v.path("runner").asText());
      if (mine
          && did.equals(v.path("did").asText())
          && key.equals(v.path("key").asText())
          && (runner == null || runner.equals(v.path("runner").asText()))) {
        list.add(v.deepCopy());
      }
    }
    HarnessAppview.send(ex, 200, out);
  }

  /** The caller's DID, or null once a refusal has been sent. */
  private String caller(HttpExchange ex, String method) throws IOException {
    try {
      return tokens.verify(ex.getRequestHeaders().getFirst("Authorization"), method);
    } catch (ServiceTokens.Refused e) {
      HarnessAppview.send(ex, 401, HarnessAppview.error("AuthenticationRequired", e.getMessage()));
      return null;
    }
  }

  private static String id(JsonNode v) {
    return String.join(
        "\0",
        v.path("did").asText(),
        v.path("key").asText(),
        v.path("runner").asText(),
        v.path("name").asText());
  }
}
