package dev.knotless.runner.doorbell;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads {@code com.atproto.sync.subscribeRepos} frames: two DAG-CBOR objects back to back, a header
 * {@code {op, t}} and a body. Of a {@code #commit} body only {@code repo} and {@code
 * ops[].action}/{@code ops[].path} ({@code <collection>/<rkey>}) are read; CIDs (CBOR tag 42) and
 * the CAR blocks are skipped over. An error frame ({@code op: -1}) reads as {@link Failure}.
 *
 * <p>Stateless and thread-safe.
 */
public final class FirehoseFrames {
  private static final CBORMapper CBOR = new CBORMapper();

  private FirehoseFrames() {}

  /** What one frame said. */
  public sealed interface Frame permits Commit, Failure, Other {}

  /**
   * A commit to one account's repository.
   *
   * @param repo the account's DID
   * @param changes one per op, in the commit's order
   */
  public record Commit(String repo, List<RecordChange> changes) implements Frame {
    public Commit {
      changes = List.copyOf(changes);
    }
  }

  /**
   * An error frame; the server closes the connection after it.
   *
   * @param error the error name, such as {@code FutureCursor}
   * @param message the server's message, possibly empty
   */
  public record Failure(String error, String message) implements Frame {}

  /**
   * A message of a type the doorbell does not need ({@code #identity}, {@code #account}, {@code
   * #sync}, {@code #info}).
   *
   * @param type the header's {@code t}
   */
  public record Other(String type) implements Frame {}

  /**
   * Reads one binary frame.
   *
   * @throws IllegalArgumentException naming what is wrong if it is not a header and a body, or a
   *     commit lacks {@code repo} or a readable op
   */
  public static Frame parse(byte[] frame) {
    JsonNode header;
    JsonNode body;
    try (MappingIterator<JsonNode> values = CBOR.readerFor(JsonNode.class).readValues(frame)) {
      header = values.hasNextValue() ? values.nextValue() : null;
      body = values.hasNextValue() ? values.nextValue() : null;
    } catch (IOException e) {
      throw new IllegalArgumentException("firehose frame is not DAG-CBOR: " + e.getMessage(), e);
    }
    if (header == null || !header.isObject() || body == null || !body.isObject()) {
      throw new IllegalArgumentException(
          "firehose frame must be a CBOR header map followed by a body map");
    }
    int op = header.path("op").asInt(0);
    if (op == -1) {
      return new Failure(body.path("error").asText("unknown"), body.path("message").asText(""));
    }
    if (op != 1) {
      throw new IllegalArgumentException("firehose frame header has op " + header.path("op"));
    }
    String type = header.path("t").asText("");
    if (!"#commit".equals(type)) {
      return new Other(type);
    }
    String repo = body.path("repo").asText("");
    if (repo.isEmpty()) {
      throw new IllegalArgumentException("firehose #commit has no \"repo\"");
    }
    List<RecordChange> changes = new ArrayList<>();
    for (JsonNode each : body.path("ops")) {
      String path = each.path("path").asText("");
      int slash = path.indexOf('/');
      if (slash <= 0 || slash == path.length() - 1) {
        throw new IllegalArgumentException(
            "firehose #commit op path must be <collection>/<rkey>, got \"" + path + "\"");
      }
      changes.add(
          new RecordChange(
              repo,
              path.substring(0, slash),
              path.substring(slash + 1),
              RecordChange.Operation.parse(each.path("action").asText(null))));
    }
    return new Commit(repo, changes);
  }
}
