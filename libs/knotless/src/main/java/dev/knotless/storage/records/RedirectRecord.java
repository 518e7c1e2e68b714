package dev.knotless.storage.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.AtUri;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RecordFormatException;

/**
 * A {@code dev.knotless.redirect} record under a former name: the repo record's AT-URI and the key
 * it must carry. {@code space} is set only for a private repository. Immutable.
 */
public record RedirectRecord(
    String formerName, AtUri repo, String key, String space, String createdAt) {

  public static RedirectRecord parse(String uri, String formerName, JsonNode value)
      throws RecordFormatException {
    ObjectNode v = Fields.object(uri, value);
    String target = Fields.text(uri, v, "repo");
    AtUri at;
    try {
      at = AtUri.parse(target);
    } catch (IllegalArgumentException e) {
      throw new RecordFormatException(uri, "field 'repo' is not a record AT-URI: " + target);
    }
    if (!at.collection().equals(Lexicons.REPO)) {
      throw new RecordFormatException(uri, "field 'repo' does not name a repo record: " + target);
    }
    return new RedirectRecord(
        formerName,
        at,
        Fields.text(uri, v, "key"),
        Fields.optionalText(uri, v, "space"),
        Fields.optionalText(uri, v, "createdAt"));
  }

  public ObjectNode toJson() {
    ObjectNode n = Fields.NODES.objectNode();
    n.put("$type", Lexicons.REDIRECT);
    n.put("repo", repo.toString());
    n.put("key", key);
    if (space != null) {
      n.put("space", space);
    }
    n.put("createdAt", createdAt);
    return n;
  }
}
