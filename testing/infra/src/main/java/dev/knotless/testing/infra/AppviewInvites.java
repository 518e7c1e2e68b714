package dev.knotless.testing.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The harness appview's invites, in memory: {@code dev.knotless.inviteRunner} and {@code
 * listRunnerInvites}, as our lexicons read runner.md. Any caller with a service token for the
 * method leaves one (runner.md: anyone can), kept with who left it; each invite left is a new
 * entry, so one left again is listed again. A runner lists only its own, oldest first, after a
 * cursor (the sequence of the last one listed), and is always answered a cursor: the one it gave
 * when nothing is newer. Every listing's cursor is kept ({@link #listings}), for tests to see where
 * a runner read from. Thread-safe.
 */
public final class AppviewInvites {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX = 100;

  private final ServiceTokens tokens;
  private final List<ObjectNode> invites = new ArrayList<>();
  private final List<String> listings = new java.util.concurrent.CopyOnWriteArrayList<>();

  AppviewInvites(ServiceTokens tokens) {
    this.tokens = tokens;
  }

  /** The cursor each listing asked from, in order ({@code ""} for one asking from the start). */
  public List<String> listings() {
    return List.copyOf(listings);
  }

  /** Every invite left, oldest first: runner, did, name, by, createdAt. */
  public synchronized List<ObjectNode> all() {
    return invites.stream().map(ObjectNode::deepCopy).toList();
  }

  /**
   * Whether the owner of {@code space} ({@code <owner did>/<name>}) invited {@code runner} to it:
   * an invite anyone else left does not count.
   */
  synchronized boolean invitedByOwner(String runner, String space) {
    for (ObjectNode i : invites) {
      String owner = i.path("did").asText();
      if (i.path("runner").asText().equals(runner)
          && i.path("by").asText().equals(owner)
          && space.equals(owner + "/" + i.path("name").asText())) {
        return true;
      }
    }
    return false;
  }

  void invite(HttpExchange ex) throws IOException {
    String caller = caller(ex, "dev.knotless.inviteRunner");
    if (caller == null) {
      return;
    }
    JsonNode body = JSON.readTree(ex.getRequestBody());
    for (String f : List.of("runner", "did", "name")) {
      if (!body.path(f).isTextual() || body.path(f).asText().isEmpty()) {
        HarnessAppview.send(ex, 400, HarnessAppview.error("InvalidRequest", f + " is required"));
        return;
      }
    }
    ObjectNode kept = JSON.createObjectNode();
    kept.put("runner", body.path("runner").asText());
    kept.put("did", body.path("did").asText());
    kept.put("name", body.path("name").asText());
    kept.put("by", caller);
    kept.put("createdAt", Instant.now().toString());
    synchronized (this) {
      invites.add(kept);
    }
    HarnessAppview.send(ex, 200, JSON.createObjectNode());
  }

  void list(HttpExchange ex) throws IOException {
    String caller = caller(ex, "dev.knotless.listRunnerInvites");
    if (caller == null) {
      return;
    }
    Map<String, String> q = HarnessAppview.params(ex.getRequestURI().getRawQuery());
    String cursor = q.get("cursor");
    int after;
    int limit;
    try {
      after = cursor == null ? 0 : Integer.parseInt(cursor);
      limit = Math.max(1, Math.min(MAX, Integer.parseInt(q.getOrDefault("limit", "50"))));
    } catch (NumberFormatException e) {
      HarnessAppview.send(ex, 400, HarnessAppview.error("InvalidRequest", "bad cursor or limit"));
      return;
    }
    listings.add(cursor == null ? "" : cursor);
    ObjectNode out = JSON.createObjectNode();
    ArrayNode page = out.putArray("invites");
    int last = after;
    synchronized (this) {
      for (int i = after; i < invites.size() && page.size() < limit; i++) {
        ObjectNode v = invites.get(i);
        if (v.path("runner").asText().equals(caller)) {
          ObjectNode view = v.deepCopy();
          view.remove("runner");
          page.add(view);
        }
        // Others' invites the scan passed are behind the cursor too.
        last = i + 1;
      }
    }
    out.put("cursor", String.valueOf(last));
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
}
