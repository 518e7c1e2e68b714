package dev.knotless.runner.exec.pod;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long a run pod's image took to pull, read from the events the kubelet records on the pod: the
 * one place that reads them. A {@code Pulled} event that says {@code Successfully pulled image "X"
 * in 1.234s (1.5s including waiting)} gives the pull's own time (the first figure, without the wait
 * behind other pulls on the node); one from a kubelet that names no time gives the span from its
 * {@code Pulling} event to it, to the second the API server keeps. {@code Container image "X"
 * already present on machine} means nothing was pulled, and gives nothing. Stateless.
 */
public final class ImagePulls {

  /**
   * One event on a pod, as much of it as this reads.
   *
   * @param reason its reason ({@code Pulling}, {@code Pulled}, {@code Failed}, ...)
   * @param message its message
   * @param at when it last happened, or null when the API server gave no time
   */
  public record Event(String reason, String message, Instant at) {}

  private static final String PART_TEXT = "([0-9]+(?:\\.[0-9]+)?)(ns|us|µs|μs|ms|s|m|h)";
  private static final Pattern PART = Pattern.compile(PART_TEXT);
  private static final Pattern PULLED_IN =
      Pattern.compile(
          "^Successfully pulled image \".*\" in ((?:[0-9]+(?:\\.[0-9]+)?(?:ns|us|µs|μs|ms|s|m|h))+)");

  private ImagePulls() {}

  /**
   * The pull time the events of one pod give, or empty when its image was already on the node, no
   * {@code Pulled} event has come, or the one that came gives no time.
   */
  public static Optional<Duration> pullTime(List<Event> events) {
    Event pulled = null;
    Instant pulling = null;
    for (Event e : events) {
      if ("Pulling".equals(e.reason()) && e.at() != null) {
        pulling = pulling == null || e.at().isBefore(pulling) ? e.at() : pulling;
      } else if ("Pulled".equals(e.reason()) && e.message() != null) {
        pulled = e;
      }
    }
    if (pulled == null || !pulled.message().startsWith("Successfully pulled image ")) {
      return Optional.empty();
    }
    Optional<Duration> said = inMessage(pulled.message());
    if (said.isPresent()) {
      return said;
    }
    if (pulling != null && pulled.at() != null && !pulled.at().isBefore(pulling)) {
      return Optional.of(Duration.between(pulling, pulled.at()));
    }
    return Optional.empty();
  }

  /**
   * The time a {@code Pulled} event's message gives, as Go prints a duration ({@code 850ms}, {@code
   * 1.234s}, {@code 1m2.5s}); empty when it gives none.
   */
  static Optional<Duration> inMessage(String message) {
    Matcher m = PULLED_IN.matcher(message);
    if (!m.find()) {
      return Optional.empty();
    }
    return goDuration(m.group(1));
  }

  /**
   * A duration as Go's {@code time.Duration.String} prints it, or empty if {@code s} is not one.
   */
  static Optional<Duration> goDuration(String s) {
    if ("0s".equals(s)) {
      return Optional.of(Duration.ZERO);
    }
    Matcher m = PART.matcher(s);
    BigDecimal nanos = BigDecimal.ZERO;
    int at = 0;
    while (at < s.length()) {
      if (!m.find(at) || m.start() != at) {
        return Optional.empty();
      }
      BigDecimal n = new BigDecimal(m.group(1));
      long unit =
          switch (m.group(2)) {
            case "ns" -> 1L;
            case "us", "µs", "μs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
          };
      nanos = nanos.add(n.multiply(BigDecimal.valueOf(unit)));
      at = m.end();
    }
    return at == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(nanos.longValue()));
  }
}
