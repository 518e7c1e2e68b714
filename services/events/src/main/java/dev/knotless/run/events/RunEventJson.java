package dev.knotless.run.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** Reads and writes {@link RunEvent}s as JSON. Thread-safe. */
public final class RunEventJson {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private RunEventJson() {}

  /** The event as JSON. */
  public static String encode(RunEvent event) {
    try {
      return JSON.writeValueAsString(event);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a run event could not be written as JSON", e);
    }
  }

  /**
   * Reads an event.
   *
   * @throws IllegalArgumentException naming what is wrong when the text is not a run event
   */
  public static RunEvent decode(String text) {
    try {
      return JSON.readValue(text, RunEvent.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not a run event: " + e.getOriginalMessage(), e);
    }
  }
}
