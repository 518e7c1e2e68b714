package dev.knotless.atproto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON of the record calls a PDS and a space answer alike ({@code listRecords}, {@code
 * applyWrites}, {@code putRecord}): the parameters and bodies sent, and the write results read
 * back. Stateless.
 */
public final class RepoBodies {

  /** The most writes one {@code applyWrites} takes. */
  public static final int MAX_WRITES = 200;

  private RepoBodies() {}

  /**
   * The parameters of a {@code listRecords} call, a PDS's or a space's.
   *
   * @throws IllegalArgumentException for a limit outside 1 to 100
   */
  public static Map<String, String> listRecordsParams(
      String repo, String collection, int limit, String cursor, boolean reverse) {
    if (limit < 1 || limit > 100) {
      throw new IllegalArgumentException("listRecords limit must be 1 to 100, not " + limit);
    }
    Map<String, String> p = new HashMap<>();
    p.put("repo", repo);
    p.put("collection", collection);
    p.put("limit", Integer.toString(limit));
    p.put("cursor", cursor);
    if (reverse) {
      p.put("reverse", "true");
    }
    return p;
  }

  /**
   * Adds {@code writes} to {@code body} as its {@code writes} array, each typed by {@code
   * applyWrites} (the call's NSID) and its kind; a record without a {@code $type} gets its
   * collection's.
   *
   * @throws IllegalArgumentException for more than {@value #MAX_WRITES} writes
   */
  public static ObjectNode withWrites(ObjectNode body, String applyWrites, List<Write> writes) {
    if (writes.size() > MAX_WRITES) {
      throw new IllegalArgumentException(
          "applyWrites takes at most " + MAX_WRITES + " writes, not " + writes.size());
    }
    ArrayNode arr = body.putArray("writes");
    for (Write w : writes) {
      ObjectNode o = arr.addObject().put("collection", w.collection()).put("rkey", w.rkey());
      if (w instanceof Write.Create c) {
        o.put("$type", applyWrites + "#create").set("value", typed(w.collection(), c.value()));
      } else if (w instanceof Write.Update u) {
        o.put("$type", applyWrites + "#update").set("value", typed(w.collection(), u.value()));
      } else {
        o.put("$type", applyWrites + "#delete");
      }
    }
    return body;
  }

  /** The results of an {@code applyWrites} reply, in the order of its writes. */
  public static List<WriteResult> writeResults(JsonNode reply) {
    List<WriteResult> out = new ArrayList<>();
    for (JsonNode n : reply.path("results")) {
      out.add(writeResult(n));
    }
    return out;
  }

  /** The URI and CID of one written record, either null where the reply has none. */
  public static WriteResult writeResult(JsonNode n) {
    return new WriteResult(n.path("uri").asText(null), n.path("cid").asText(null));
  }

  /** {@code value}, or a copy of it typed as {@code collection} when it has no {@code $type}. */
  public static ObjectNode typed(String collection, ObjectNode value) {
    if (value.has("$type")) {
      return value;
    }
    ObjectNode copy = Json.object();
    copy.put("$type", collection);
    copy.setAll(value);
    return copy;
  }
}
