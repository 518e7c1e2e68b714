package dev.knotless.storage.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RecordFormatException;

/**
 * A {@code dev.knotless.claim} record: one move of one ref, keyed by the generation it moved from.
 * {@code to} is null for a delete, {@code from} null for the empty pre-0.6 records compaction
 * drops, {@code pack} null when the move wrote no pack. Never updated. Immutable.
 */
public record ClaimRecord(
    String rkey, String ref, String from, String to, String pack, String createdAt, String pusher) {

  public static ClaimRecord parse(String uri, String rkey, JsonNode value)
      throws RecordFormatException {
    ObjectNode v = Fields.object(uri, value);
    return new ClaimRecord(
        rkey,
        Fields.optionalText(uri, v, "ref"),
        Fields.sha(uri, v, "from", false),
        Fields.sha(uri, v, "to", false),
        Fields.optionalText(uri, v, "pack"),
        Fields.optionalText(uri, v, "createdAt"),
        Fields.optionalText(uri, v, "pusher"));
  }

  public ObjectNode toJson() {
    ObjectNode n = Fields.NODES.objectNode();
    n.put("$type", Lexicons.CLAIM);
    if (ref != null) {
      n.put("ref", ref);
    }
    if (from != null) {
      n.put("from", from);
    }
    if (to != null) {
      n.put("to", to);
    }
    if (pack != null) {
      n.put("pack", pack);
    }
    if (createdAt != null) {
      n.put("createdAt", createdAt);
    }
    if (pusher != null) {
      n.put("pusher", pusher);
    }
    return n;
  }
}
