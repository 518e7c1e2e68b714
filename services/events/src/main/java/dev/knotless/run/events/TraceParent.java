package dev.knotless.run.events;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * A W3C {@code traceparent}: the trace and the span a piece of work continues, as the services
 * carry it on Kafka records (a header of this {@link #HEADER name}) and on a queued run's row. What
 * arrives is read as hostile: anything but one well-formed value is no parent at all, never an
 * exception, and the work simply starts a trace of its own.
 *
 * @param traceId 32 lowercase hex digits, not all zero
 * @param spanId 16 lowercase hex digits, not all zero
 * @param sampled whether the parent was recorded
 */
public record TraceParent(String traceId, String spanId, boolean sampled) {
  /** The record header and the row column's meaning: W3C Trace Context's name. */
  public static final String HEADER = "traceparent";

  /** Longer than this is not read at all (a version 00 value is 55 characters). */
  static final int MAX_LENGTH = 256;

  private static final String NO_TRACE = "0".repeat(32);
  private static final String NO_SPAN = "0".repeat(16);

  public TraceParent {
    if (!hex(traceId, 32) || traceId.equals(NO_TRACE)) {
      throw new IllegalArgumentException("not a trace id");
    }
    if (!hex(spanId, 16) || spanId.equals(NO_SPAN)) {
      throw new IllegalArgumentException("not a span id");
    }
  }

  /** The parent {@code value} names, or none when it is missing or malformed. */
  public static Optional<TraceParent> parse(String value) {
    if (value == null || value.length() < 55 || value.length() > MAX_LENGTH) {
      return Optional.empty();
    }
    String version = value.substring(0, 2);
    if (!hex(version, 2) || version.equals("ff")) {
      return Optional.empty();
    }
    // Version 00 is exactly 55 characters; a later version may add fields after a dash.
    if (version.equals("00")
        ? value.length() != 55
        : value.length() > 55 && value.charAt(55) != '-') {
      return Optional.empty();
    }
    if (value.charAt(2) != '-' || value.charAt(35) != '-' || value.charAt(52) != '-') {
      return Optional.empty();
    }
    String trace = value.substring(3, 35);
    String span = value.substring(36, 52);
    String flags = value.substring(53, 55);
    if (!hex(flags, 2)
        || !hex(trace, 32)
        || !hex(span, 16)
        || trace.equals(NO_TRACE)
        || span.equals(NO_SPAN)) {
      return Optional.empty();
    }
    boolean sampled = (Integer.parseInt(flags, 16) & 1) == 1;
    return Optional.of(new TraceParent(trace, span, sampled));
  }

  /**
   * The parent the {@link #HEADER} headers of a record name: exactly one, well formed, in ASCII;
   * none when there are none, several (which one would be a guess) or a malformed one.
   */
  public static Optional<TraceParent> fromHeaders(List<byte[]> values) {
    if (values == null || values.size() != 1 || values.get(0) == null) {
      return Optional.empty();
    }
    byte[] v = values.get(0);
    if (v.length > MAX_LENGTH) {
      return Optional.empty();
    }
    return parse(new String(v, StandardCharsets.US_ASCII));
  }

  /** The value as written: version 00. */
  public String value() {
    return "00-" + traceId + "-" + spanId + "-" + (sampled ? "01" : "00");
  }

  /** {@link #value()} as a header's bytes. */
  public byte[] header() {
    return value().getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public String toString() {
    return value();
  }

  private static boolean hex(String s, int length) {
    if (s == null || s.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }
}
