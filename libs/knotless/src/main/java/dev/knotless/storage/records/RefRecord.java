package dev.knotless.storage.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RecordFormatException;
import java.util.Optional;

/**
 * A {@code dev.knotless.ref} record: where one ref points. {@code target} is null only for the
 * empty records clients before 0.6 kept for deleted refs; such a ref is not live. {@code pack} is
 * the key of the pack holding the target, null when unknown (pre-0.6, or the push wrote no pack).
 * {@code generation} started at 1 before 0.6 and at the time in milliseconds since; 0 parses too,
 * as the lexicon allows it. Times are ISO-8601 strings as written. Immutable.
 */
public record RefRecord(
    String rkey,
    String name,
    String target,
    long generation,
    String pack,
    String createdAt,
    String updatedAt,
    String pusher) {

  /** Whether the ref exists: pre-0.6 clients left records of deleted refs with no target. */
  public boolean live() {
    return target != null;
  }

  /** The pack key holding the target, when the record names one. */
  public Optional<String> packKey() {
    return Optional.ofNullable(pack);
  }

  public static RefRecord parse(String uri, String rkey, JsonNode value)
      throws RecordFormatException {
    ObjectNode v = Fields.object(uri, value);
    String name = Fields.text(uri, v, "name");
    if (!name.equals("HEAD")) {
      try {
        // A name git would refuse (a newline, a space, "..") never reaches a command or a log.
        dev.knotless.storage.push.RefNames.validate(name);
      } catch (IllegalArgumentException e) {
        throw new RecordFormatException(
            uri, "field 'name': " + e.getMessage().replace("\n", "\\n").replace("\r", "\\r"));
      }
    }
    long generation = Fields.integer(uri, v, "generation");
    if (generation < 0) {
      // The lexicon's minimum is 0; only a negative generation cannot have been written.
      throw new RecordFormatException(uri, "field 'generation' is negative: " + generation);
    }
    return new RefRecord(
        rkey,
        name,
        Fields.sha(uri, v, "target", false),
        generation,
        Fields.optionalText(uri, v, "pack"),
        Fields.optionalText(uri, v, "createdAt"),
        Fields.optionalText(uri, v, "updatedAt"),
        Fields.optionalText(uri, v, "pusher"));
  }

  public ObjectNode toJson() {
    ObjectNode n = Fields.NODES.objectNode();
    n.put("$type", Lexicons.REF);
    n.put("name", name);
    if (target != null) {
      n.put("target", target);
    }
    n.put("generation", generation);
    if (pack != null) {
      n.put("pack", pack);
    }
    if (createdAt != null) {
      n.put("createdAt", createdAt);
    }
    if (updatedAt != null) {
      n.put("updatedAt", updatedAt);
    }
    if (pusher != null) {
      n.put("pusher", pusher);
    }
    return n;
  }
}
