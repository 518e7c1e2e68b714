package dev.knotless.runner.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.runner.queue.QueueState;
import java.util.ArrayList;
import java.util.List;

/**
 * One branch's merge queue in the state file's {@code queue} field: the batches running with their
 * pulls, heads, base, tip and status, the half of a bisection waiting, and the last batch id. The
 * PostgreSQL store keeps the same JSON per branch ({@link #toJson}, {@link #fromJson}), so both
 * stores resume a queue alike. Thread-safe.
 */
public final class QueueCodec {

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private QueueCodec() {}

  /** The queue as a JSON object, as the state file holds it under its branch. */
  public static String toJson(QueueState q) {
    ObjectNode o = JSON.createObjectNode();
    write(o, q);
    return o.toString();
  }

  /**
   * Reads what {@link #toJson} wrote.
   *
   * @throws IllegalArgumentException naming what is not as written, or if it is not JSON
   */
  public static QueueState fromJson(String baseRef, String json) {
    JsonNode o;
    try {
      o = JSON.readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the queue of " + baseRef + " is not JSON: " + e.getOriginalMessage(), e);
    }
    if (o == null || !o.isObject()) {
      throw new IllegalArgumentException("the queue of " + baseRef + " is not a JSON object");
    }
    return read(baseRef, o);
  }

  static void write(ObjectNode o, QueueState q) {
    ArrayNode running = o.putArray("running");
    for (QueueState.Batch b : q.running()) {
      ObjectNode n = running.addObject();
      n.put("id", b.id());
      pulls(n.putArray("pulls"), b.pulls());
      n.put("found_by", b.foundBy());
      if (b.base() != null) {
        n.put("base", b.base());
      }
      if (b.tip() != null) {
        n.put("tip", b.tip());
      }
      n.put("status", b.status().name().toLowerCase(java.util.Locale.ROOT));
    }
    pulls(o.putArray("pending"), q.pending());
    o.put("pending_found_by", q.pendingFoundBy());
    o.put("last_id", q.lastId());
  }

  /**
   * Reads what {@link #write} wrote.
   *
   * @throws IllegalArgumentException naming what is not as written
   */
  static QueueState read(String baseRef, JsonNode o) {
    List<QueueState.Batch> running = new ArrayList<>();
    for (JsonNode n : array(o.get("running"), "running")) {
      running.add(
          new QueueState.Batch(
              number(n.get("id"), "id"),
              pulls(n.get("pulls")),
              number(n.get("found_by"), "found_by"),
              optional(n.get("base"), "base"),
              optional(n.get("tip"), "tip"),
              QueueState.Status.valueOf(
                  text(n.get("status"), "status").toUpperCase(java.util.Locale.ROOT))));
    }
    return new QueueState(
        baseRef,
        running,
        pulls(o.get("pending")),
        number(o.get("pending_found_by"), "pending_found_by"),
        number(o.get("last_id"), "last_id"));
  }

  private static void pulls(ArrayNode a, List<QueueState.Pull> pulls) {
    for (QueueState.Pull p : pulls) {
      a.addObject().put("uri", p.uri()).put("head", p.head());
    }
  }

  private static List<QueueState.Pull> pulls(JsonNode a) {
    List<QueueState.Pull> out = new ArrayList<>();
    for (JsonNode p : array(a, "pulls")) {
      out.add(new QueueState.Pull(text(p.get("uri"), "uri"), text(p.get("head"), "head")));
    }
    return out;
  }

  private static JsonNode array(JsonNode n, String name) {
    if (n == null || !n.isArray()) {
      throw new IllegalArgumentException(name + " is not a list");
    }
    return n;
  }

  private static String text(JsonNode n, String name) {
    if (n == null || !n.isTextual()) {
      throw new IllegalArgumentException(name + " holds " + n + " where a string belongs");
    }
    return n.asText();
  }

  private static String optional(JsonNode n, String name) {
    return n == null || n.isNull() ? null : text(n, name);
  }

  private static long number(JsonNode n, String name) {
    if (n == null || !n.isIntegralNumber()) {
      throw new IllegalArgumentException(name + " holds " + n + " where a whole number belongs");
    }
    return n.asLong();
  }
}
