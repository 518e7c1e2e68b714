package dev.knotless.run.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.runner.doorbell.Doorbell;

/**
 * The JSON a doorbell travels as: {@code {"reason":"frame","detail":"dev.knotless.ref"}}. The
 * reason is one of {@code frame}, {@code connect}, {@code sweep}, {@code retry}, {@code asked},
 * {@code notice}; {@code detail} is the collection of a frame or the source of a connect.
 * Thread-safe.
 */
public final class DoorbellMessage {
  private static final ObjectMapper JSON = new ObjectMapper();

  private DoorbellMessage() {}

  /** The reason's short name, also the {@code reason} tag of the doorbell metrics. */
  /** Every name {@link #reasonName} gives, for metrics registered at zero up front. */
  public static final java.util.List<String> REASON_NAMES =
      java.util.List.of("frame", "connect", "sweep", "retry", "notice", "asked");

  public static String reasonName(Doorbell bell) {
    // Java 17 has no pattern switch; the sealed set is small enough for a chain.
    if (bell instanceof Doorbell.Frame) {
      return "frame";
    } else if (bell instanceof Doorbell.Connect) {
      return "connect";
    } else if (bell instanceof Doorbell.Sweep) {
      return "sweep";
    } else if (bell instanceof Doorbell.Retry) {
      return "retry";
    } else if (bell instanceof Doorbell.Notice) {
      return "notice";
    }
    return "asked";
  }

  /** Encodes a doorbell as JSON. */
  public static String encode(Doorbell bell) {
    ObjectNode node = JSON.createObjectNode().put("reason", reasonName(bell));
    if (bell instanceof Doorbell.Frame f) {
      node.put("detail", f.collection());
    } else if (bell instanceof Doorbell.Connect c) {
      node.put("detail", c.source());
    }
    return node.toString();
  }

  /**
   * Decodes what {@link #encode} wrote.
   *
   * @throws IllegalArgumentException naming the text when it is not a doorbell
   */
  public static Doorbell decode(String text) {
    JsonNode node;
    try {
      node = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("doorbell is not JSON: " + abbreviate(text), e);
    }
    String reason = node == null ? "" : node.path("reason").asText("");
    String detail = node == null ? "" : node.path("detail").asText("");
    return switch (reason) {
      case "frame" -> Doorbell.frame(requireDetail(detail, text));
      case "connect" -> Doorbell.connect(requireDetail(detail, text));
      case "sweep" -> Doorbell.SWEEP;
      case "retry" -> Doorbell.RETRY;
      case "asked" -> Doorbell.ASKED;
      case "notice" -> Doorbell.NOTICE;
      default ->
          throw new IllegalArgumentException(
              "doorbell has no known reason (frame, connect, sweep, retry, asked, notice): "
                  + abbreviate(text));
    };
  }

  private static String requireDetail(String detail, String text) {
    if (detail.isEmpty()) {
      throw new IllegalArgumentException("doorbell lacks its detail: " + abbreviate(text));
    }
    return detail;
  }

  private static String abbreviate(String text) {
    return text.length() > 200 ? text.substring(0, 200) + "…" : text;
  }
}
