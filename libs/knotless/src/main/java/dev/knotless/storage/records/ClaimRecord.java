package dev.knotless.storage.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RecordFormatException;

/**
 * A {@code dev.knotless.claim} record: one move of one ref, keyed by the generation it moved from.
 * {@code from} is {@link #NO_OBJECT} when the ref had no target (an empty pre-0.6 record), {@code
 * to} null for a delete, {@code pack} null when the move wrote no pack. Never updated. Immutable.
 */
public record ClaimRecord(
    String rkey, String from, String to, String pack, String createdAt, String pusher) {
  /** What {@code from} holds when the ref had no target: git's all-zero object id. */
  public static final String NO_OBJECT = "0".repeat(40);

  public static ClaimRecord parse(String uri, String rkey, JsonNode value)
      throws RecordFormatException {
    ObjectNode v = Fields.object(uri, value);
    return new ClaimRecord(
        rkey,
        Fields.sha(uri, v, "from", true),
        Fields.sha(uri, v, "to", false),
        Fields.optionalText(uri, v, "pack"),
        Fields.optionalText(uri, v, "createdAt"),
        Fields.optionalText(uri, v, "pusher"));
  }

  public ObjectNode toJson() {
    ObjectNode n = Fields.NODES.objectNode();
    n.put("$type", Lexicons.CLAIM);
    n.put("from", from == null ? NO_OBJECT : from);
    if (to != null) {
      n.put("to", to);
    }
    if (pack != null) {
      n.put("pack", pack);
    }
    n.put("createdAt", createdAt);
    if (pusher != null) {
      n.put("pusher", pusher);
    }
    return n;
  }
}
