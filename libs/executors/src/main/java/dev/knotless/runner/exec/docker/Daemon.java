package dev.knotless.runner.exec.docker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.exception.DockerException;
import dev.knotless.atproto.Printable;
import java.util.Optional;

/** How the daemon's failures read in a check's log: the cause, in a line. Thread-safe. */
final class Daemon {

  private static final ObjectMapper JSON = new ObjectMapper();

  private Daemon() {}

  /**
   * What the daemon said, without the client's decoration, whole and on one line: the client
   * prefixes {@code Status 500: } and wraps the daemon's JSON {@code {"message":"..."}}, whose
   * message often quotes a URL ({@code Get "https://..."}), so it is read as JSON, not cut at the
   * first quote. A line break or other unprintable character in it is escaped, so what a registry
   * or daemon says cannot end the line or fake another in a check's log.
   */
  static String why(Throwable e) {
    String body = e.getMessage() == null ? e.toString() : e.getMessage();
    if (e instanceof DockerException) {
      body = daemonMessage(body).orElse(body.strip());
    }
    return oneLine(body);
  }

  /** The {@code message} of the JSON object in {@code body}, if it holds one. */
  private static Optional<String> daemonMessage(String body) {
    int brace = body.indexOf('{');
    if (brace < 0) {
      return Optional.empty();
    }
    try {
      JsonNode message = JSON.readTree(body.substring(brace)).path("message");
      return message.isTextual() ? Optional.of(message.asText()) : Optional.empty();
    } catch (JsonProcessingException notJson) {
      return Optional.empty();
    }
  }

  /** {@code s} with every character that could end, move or hide part of a line escaped. */
  static String oneLine(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        b.append(c).append(s.charAt(++i));
      } else if (c == '\n') {
        b.append("\\n");
      } else if (c == '\r') {
        b.append("\\r");
      } else if (c == '\t') {
        b.append("\\t");
      } else if (Printable.unprintable(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** A daemon that did not answer, named by where the runner looked for it. */
  static String unreachable(String host, Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String cause = root.getMessage() == null ? root.toString() : root.getMessage();
    return "could not reach the docker daemon at " + host + ": " + oneLine(cause);
  }
}
