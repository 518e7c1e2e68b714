package dev.knotless.atproto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A reference to an uploaded blob, as records carry it.
 *
 * @param cid the blob's CID
 * @param mimeType the type it was uploaded as
 * @param size its length in bytes
 */
public record BlobRef(String cid, String mimeType, long size) {

  /** The record form: {@code {"$type":"blob","ref":{"$link":cid},"mimeType","size"}}. */
  public ObjectNode toJson() {
    ObjectNode n = JsonNodeFactory.instance.objectNode();
    n.put("$type", "blob");
    n.putObject("ref").put("$link", cid);
    n.put("mimeType", mimeType);
    n.put("size", size);
    return n;
  }

  /**
   * Reads the record form.
   *
   * @throws IllegalArgumentException naming what is missing
   */
  public static BlobRef fromJson(JsonNode n) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("a blob reference must be an object");
    }
    JsonNode link = n.path("ref").path("$link");
    if (!link.isTextual() || link.asText().isEmpty()) {
      throw new IllegalArgumentException("a blob reference has no ref.$link");
    }
    if (!n.path("size").canConvertToLong()) {
      throw new IllegalArgumentException("a blob reference has no numeric size");
    }
    return new BlobRef(link.asText(), n.path("mimeType").asText(""), n.path("size").asLong());
  }
}
