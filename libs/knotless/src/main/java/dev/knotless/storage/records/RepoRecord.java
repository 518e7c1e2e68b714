package dev.knotless.storage.records;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Tid;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.RecordFormatException;
import java.time.Instant;
import java.util.Optional;

/**
 * A {@code dev.knotless.repo} record, keyed by the repository's name. {@code key} is the TID every
 * other record of the repository is keyed by. {@code raw} keeps every field, including those a
 * newer client wrote that this one does not know, so a rewrite keeps them. Immutable.
 */
public record RepoRecord(String name, String key, String defaultBranch, ObjectNode raw) {

  /** A new repository's record: a fresh key, the given default branch, created now. */
  public static RepoRecord create(String name, String defaultBranch, Instant now) {
    String key = Tid.next();
    ObjectNode n = Fields.NODES.objectNode();
    n.put("$type", Lexicons.REPO);
    n.put("key", key);
    if (defaultBranch != null) {
      n.put("defaultBranch", defaultBranch);
    }
    n.put("createdAt", now.toString());
    return new RepoRecord(name, key, defaultBranch, n);
  }

  /**
   * This new record naming {@code runners} (DIDs) in {@code runners}, the accounts whose checks
   * readers trust and which run its workflows; none leaves the field out. How both a first push and
   * {@code knotless create} name a new repository's runners.
   */
  public RepoRecord namingRunners(java.util.List<String> runners) {
    if (runners.isEmpty()) {
      return this;
    }
    ObjectNode n = raw.deepCopy();
    var list = n.putArray("runners");
    runners.forEach(list::add);
    return new RepoRecord(name, key, defaultBranch, n);
  }

  /** Parses the record at {@code uri} named {@code name}; fails naming the URI and the field. */
  public static RepoRecord parse(String uri, String name, JsonNode value)
      throws RecordFormatException {
    ObjectNode v = Fields.object(uri, value);
    String key = Fields.text(uri, v, "key");
    if (!Tid.isValid(key)) {
      throw new RecordFormatException(uri, "field 'key' is not a TID: " + key);
    }
    String branch = Fields.optionalText(uri, v, "defaultBranch");
    return new RepoRecord(name, key, branch, v.deepCopy());
  }

  /** The default branch's short name (such as {@code main}), if the record names one. */
  public Optional<String> defaultBranchName() {
    return Optional.ofNullable(defaultBranch);
  }

  /** The JSON to write, every unknown field kept. */
  public ObjectNode toJson() {
    return raw.deepCopy();
  }
}
