package dev.knotless.run.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * Reads and writes {@link RunEvent}s as JSON. Every event carries its format's version as {@code v}
 * ({@code major.minor}). A reader takes any version with its own major, ignoring fields it does not
 * know, so producers upgraded before consumers lose no event in a rolling upgrade; an event of
 * another major, or with no version at all, is refused by name. Thread-safe.
 */
public final class RunEventJson {

  /** The version events are written in. */
  public static final String VERSION = "1.0";

  private static final String MAJOR = VERSION.substring(0, VERSION.indexOf('.'));

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private RunEventJson() {}

  /** The event as JSON, with its version. */
  public static String encode(RunEvent event) {
    try {
      ObjectNode o = JSON.valueToTree(event);
      o.put("v", VERSION);
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new IllegalStateException("a run event could not be written as JSON", e);
    }
  }

  /**
   * Reads an event.
   *
   * @throws IllegalArgumentException naming what is wrong when the text is not a run event this
   *     reader takes
   */
  public static RunEvent decode(String text) {
    JsonNode o;
    try {
      o = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not a run event: " + e.getOriginalMessage(), e);
    }
    if (o == null || !o.isObject()) {
      throw new IllegalArgumentException("not a run event: not a JSON object");
    }
    // Events written before versions existed carry none: they are 1.0.
    String v = o.path("v").asText("1.0");
    if (!v.equals(VERSION) && !v.startsWith(MAJOR + ".")) {
      throw new IllegalArgumentException(
          "a run event of version " + v + "; this reader takes " + MAJOR + ".x");
    }
    ((ObjectNode) o).remove("v");
    try {
      return JSON.treeToValue(o, RunEvent.class);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "not a run event: "
              + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()),
          e);
    }
  }

  /** A dead letter: why {@code value}, keyed {@code key}, could not be read. */
  public static String deadLetter(String key, String value, String reason) {
    ObjectNode o = JSON.createObjectNode();
    o.put("reason", reason);
    if (key != null) {
      o.put("key", key);
    }
    if (value != null) {
      o.put("value", value);
    }
    return o.toString();
  }
}
