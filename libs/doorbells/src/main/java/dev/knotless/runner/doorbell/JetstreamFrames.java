package dev.knotless.runner.doorbell;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;

/**
 * Reads Jetstream's JSON events: {@code {"did", "time_us", "kind": "commit", "commit": {"rev",
 * "operation", "collection", "rkey", "record", "cid"}}}. Identity and account events carry no
 * record change and read as empty. The record body is never looked at: a frame only rings.
 *
 * <p>Stateless and thread-safe.
 */
public final class JetstreamFrames {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JetstreamFrames() {}

  /**
   * The record change one event reports, or empty for an event of another kind.
   *
   * @throws IllegalArgumentException naming what is missing or wrong if the text is not a Jetstream
   *     event
   */
  public static Optional<RecordChange> parse(String text) {
    return parseEvent(text).change();
  }

  /**
   * An event's time and the record change it reports, if any.
   *
   * @param timeUs the event's {@code time_us}, Jetstream's cursor, or 0 when it has none
   * @param change the record change, or empty for an event of another kind
   */
  public record Event(long timeUs, Optional<RecordChange> change) {}

  /**
   * The event one frame holds.
   *
   * @throws IllegalArgumentException naming what is missing or wrong if the text is not a Jetstream
   *     event
   */
  public static Event parseEvent(String text) {
    JsonNode event;
    try {
      event = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "Jetstream frame is not JSON: " + e.getOriginalMessage(), e);
    }
    if (event == null || !event.isObject()) {
      throw new IllegalArgumentException("Jetstream frame is not a JSON object");
    }
    long timeUs = event.path("time_us").canConvertToLong() ? event.path("time_us").asLong() : 0;
    String kind = field(event, "kind", "");
    if (!"commit".equals(kind)) {
      return new Event(timeUs, Optional.empty());
    }
    JsonNode commit = event.path("commit");
    if (!commit.isObject()) {
      throw new IllegalArgumentException("Jetstream commit event has no \"commit\" object");
    }
    return new Event(
        timeUs,
        Optional.of(
            new RecordChange(
                field(event, "did", ""),
                field(commit, "collection", "commit."),
                field(commit, "rkey", "commit."),
                RecordChange.Operation.parse(field(commit, "operation", "commit.")))));
  }

  private static String field(JsonNode node, String name, String where) {
    JsonNode value = node.get(name);
    if (value == null || !value.isTextual() || value.asText().isEmpty()) {
      throw new IllegalArgumentException(
          "Jetstream frame has no text field \"" + where + name + "\"");
    }
    return value.asText();
  }
}
