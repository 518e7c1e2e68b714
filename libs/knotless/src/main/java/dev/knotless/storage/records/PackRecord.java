package dev.knotless.storage.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Tid;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RecordFormatException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A {@code dev.knotless.pack} record: one self-contained git pack holding every object reachable
 * from {@code tips} and not from {@code bases}. Exactly one of {@code data} (the pack inline, as
 * atproto bytes) and {@code parts} (blobs, in order) is present. {@code size} is the pack's length
 * in bytes, {@code objects} its object count. {@code supersedes} lists the pack keys a compaction
 * folded into it. Immutable (the byte array is not copied; treat it as read-only).
 */
public record PackRecord(
    String rkey,
    List<String> tips,
    List<String> bases,
    long objects,
    long size,
    byte[] data,
    List<BlobRef> parts,
    List<String> supersedes,
    String createdAt) {

  public PackRecord {
    tips = List.copyOf(tips);
    bases = List.copyOf(bases);
    parts = List.copyOf(parts);
    supersedes = List.copyOf(supersedes);
  }

  /** Whether the pack rides inside the record rather than over blobs. */
  public boolean inline() {
    return data != null;
  }

  /** When the pack was written, from the TID ending its key. */
  public Instant writtenAt() {
    String tid = rkey.substring(rkey.lastIndexOf('.') + 1);
    return Tid.instant(tid);
  }

  public static PackRecord parse(String uri, String rkey, JsonNode value)
      throws RecordFormatException {
    ObjectNode v = Fields.object(uri, value);
    int dot = rkey.lastIndexOf('.');
    if (dot < 0 || !Tid.isValid(rkey.substring(dot + 1))) {
      throw new RecordFormatException(uri, "the record key does not end in a TID");
    }
    List<String> tips = Fields.shas(uri, v, "tips");
    if (tips.isEmpty()) {
      throw new RecordFormatException(uri, "field 'tips' is missing or empty");
    }
    long size = Fields.integer(uri, v, "size");
    long objects = Fields.integer(uri, v, "objects");
    JsonNode dataNode = v.get("data");
    JsonNode partsNode = v.get("parts");
    boolean hasData = dataNode != null && !dataNode.isNull();
    boolean hasParts = partsNode != null && !partsNode.isNull();
    if (hasData == hasParts) {
      throw new RecordFormatException(uri, "exactly one of 'data' and 'parts' must be present");
    }
    byte[] data = null;
    List<BlobRef> parts = new ArrayList<>();
    if (hasData) {
      JsonNode b64 = dataNode.get("$bytes");
      if (b64 == null || !b64.isTextual()) {
        throw new RecordFormatException(uri, "field 'data' is not atproto bytes ({\"$bytes\":…})");
      }
      try {
        data = Base64.getDecoder().decode(b64.asText());
      } catch (IllegalArgumentException e) {
        throw new RecordFormatException(uri, "field 'data' is not valid base64");
      }
    } else {
      if (!partsNode.isArray() || partsNode.isEmpty()) {
        throw new RecordFormatException(uri, "field 'parts' is not a non-empty array");
      }
      for (JsonNode p : partsNode) {
        try {
          parts.add(BlobRef.fromJson(p));
        } catch (IllegalArgumentException e) {
          throw new RecordFormatException(uri, "field 'parts': " + e.getMessage());
        }
      }
    }
    return new PackRecord(
        rkey,
        tips,
        Fields.shas(uri, v, "bases"),
        objects,
        size,
        data,
        parts,
        Fields.strings(uri, v, "supersedes"),
        Fields.optionalText(uri, v, "createdAt"));
  }

  public ObjectNode toJson() {
    ObjectNode n = Fields.NODES.objectNode();
    n.put("$type", Lexicons.PACK);
    n.set("tips", Fields.array(tips));
    if (!bases.isEmpty()) {
      n.set("bases", Fields.array(bases));
    }
    n.put("objects", objects);
    n.put("size", size);
    if (data != null) {
      n.putObject("data").put("$bytes", Base64.getEncoder().withoutPadding().encodeToString(data));
    } else {
      ArrayNode a = n.putArray("parts");
      parts.forEach(p -> a.add(p.toJson()));
    }
    if (!supersedes.isEmpty()) {
      n.set("supersedes", Fields.array(supersedes));
    }
    if (createdAt != null) {
      n.put("createdAt", createdAt);
    }
    return n;
  }
}
