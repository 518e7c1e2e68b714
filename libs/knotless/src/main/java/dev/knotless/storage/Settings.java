package dev.knotless.storage;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The limits storage takes from the environment: {@code KNOTLESS_CLAIM_GRACE_SECS} (how long claims
 * are kept, 86400), {@code KNOTLESS_COMPACT_THRESHOLD} (packs that make a compaction due, 32) and
 * {@code KNOTLESS_COMPACT} (how a push starts one). Immutable.
 */
public record Settings(Duration claimGrace, int compactThreshold, CompactMode compactMode) {
  /** How the owner's push starts a due compaction. */
  public enum CompactMode {
    /** Detached, so git does not wait for the count (the default). */
    BACKGROUND,
    /** Before the push returns. */
    INLINE,
    /** Never. */
    OFF
  }

  public static Settings defaults() {
    return new Settings(Duration.ofDays(1), 32, CompactMode.BACKGROUND);
  }

  /**
   * Reads the environment; a value that does not parse is an error naming the variable.
   *
   * @throws IllegalArgumentException naming the variable and its bad value
   */
  public static Settings fromEnvironment(Map<String, String> env) {
    Settings d = defaults();
    Duration grace = d.claimGrace();
    String g = env.get("KNOTLESS_CLAIM_GRACE_SECS");
    if (g != null && !g.isBlank()) {
      grace = Duration.ofSeconds(positive("KNOTLESS_CLAIM_GRACE_SECS", g));
    }
    int threshold = d.compactThreshold();
    String t = env.get("KNOTLESS_COMPACT_THRESHOLD");
    if (t != null && !t.isBlank()) {
      threshold = (int) positive("KNOTLESS_COMPACT_THRESHOLD", t);
    }
    CompactMode mode = d.compactMode();
    String m = env.get("KNOTLESS_COMPACT");
    if (m != null && !m.isBlank()) {
      try {
        mode = CompactMode.valueOf(m.strip().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "KNOTLESS_COMPACT must be background, inline or off, not: " + m);
      }
    }
    return new Settings(grace, threshold, mode);
  }

  private static long positive(String name, String value) {
    try {
      long v = Long.parseLong(value.strip());
      if (v < 1) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a positive whole number, not: " + value);
    }
  }
}
