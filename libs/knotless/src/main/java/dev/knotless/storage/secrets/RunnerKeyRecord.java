package dev.knotless.storage.secrets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Json;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.identity.P256DidKey;
import java.io.IOException;
import java.time.Instant;
import java.util.Optional;

/**
 * The {@code dev.knotless.runnerKey} record ({@code self} in the runner's account): the public half
 * of the key owners seal secrets to, as a P-256 did:key. Stateless and thread-safe.
 */
public final class RunnerKeyRecord {

  /** The record's collection. */
  public static final String COLLECTION = "dev.knotless.runnerKey";

  /** Its one record key. */
  public static final String RKEY = "self";

  private RunnerKeyRecord() {}

  /** The record's value. */
  public static ObjectNode value(String didKey, Instant createdAt) {
    ObjectNode v = Json.object();
    v.put("$type", COLLECTION);
    v.put("key", didKey);
    v.put("createdAt", createdAt.toString());
    return v;
  }

  /**
   * The did:key a record value names.
   *
   * @throws IOException saying what is wrong, when it names no P-256 did:key
   */
  public static String parse(String runnerDid, JsonNode value) throws IOException {
    String key = value == null ? "" : value.path("key").asText("");
    try {
      P256DidKey.decode(key);
    } catch (IllegalArgumentException e) {
      throw new IOException(
          runnerDid
              + "'s "
              + COLLECTION
              + " record cannot be sealed to: its key "
              + e.getMessage());
    }
    return key;
  }

  /**
   * The key {@code runnerDid} publishes, read from its PDS.
   *
   * @return empty when it publishes none
   * @throws IOException when the PDS does not answer or the record does not parse
   */
  public static Optional<String> read(XrpcClient runnerPds, String runnerDid) throws IOException {
    var r = runnerPds.findRecord(runnerDid, COLLECTION, RKEY);
    if (r.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(parse(runnerDid, r.get().value()));
  }
}
