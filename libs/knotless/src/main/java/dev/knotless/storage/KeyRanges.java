package dev.knotless.storage;

import java.util.ArrayList;
import java.util.List;

/**
 * How the rest of a ref range is cut into ranges read side by side. Ref keys end in the base32 of a
 * hash, so their first letter spreads evenly over the alphabet. After a first descending page that
 * ended at {@code last}, the keys left are those below it; they are grouped by the first letter of
 * the hash into up to eight ranges. Pure and thread-safe.
 */
public final class KeyRanges {
  /** The base32 alphabet in byte order, the order the PDS lists keys in. */
  static final String SORTED_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz";

  /** The most ranges read at once. */
  public static final int MAX_RANGES = 8;

  private KeyRanges() {}

  /**
   * One range of a descending scan: list below {@code cursor} (exclusive) and stop at the first key
   * below {@code floor}, or outside the repository's prefix. {@code floor} is null for the lowest
   * range.
   */
  public record Range(String cursor, String floor) {
    /** Whether a key met while scanning this range still belongs to it. */
    public boolean holds(String prefix, String rkey) {
      return rkey.startsWith(prefix) && (floor == null || rkey.compareTo(floor) >= 0);
    }
  }

  /**
   * The ranges covering every key of the repository below {@code last}, a key ending a first page.
   *
   * @param key the repository's key
   * @param last the last key of the first page, {@code <key>.<hash…>}
   */
  public static List<Range> after(String key, String last) {
    String prefix = Keys.prefix(key);
    if (!last.startsWith(prefix) || last.length() == prefix.length()) {
      throw new IllegalArgumentException("not a key of repository " + key + ": " + last);
    }
    int top = SORTED_ALPHABET.indexOf(last.charAt(prefix.length()));
    if (top < 0) {
      // Not a hash letter: read the rest as one range.
      return List.of(new Range(last, null));
    }
    int letters = top + 1;
    int groups = Math.min(MAX_RANGES, letters);
    List<Range> ranges = new ArrayList<>(groups);
    // Group g covers letters [lo, hi]; the topmost group starts below `last` itself.
    int hi = top;
    for (int g = 0; g < groups; g++) {
      int remainingGroups = groups - g;
      int size = (hi + 1 + remainingGroups - 1) / remainingGroups;
      int lo = hi - size + 1;
      String cursor = g == 0 ? last : prefix + SORTED_ALPHABET.charAt(hi + 1);
      String floor = lo == 0 ? null : prefix + SORTED_ALPHABET.charAt(lo);
      ranges.add(new Range(cursor, floor));
      hi = lo - 1;
    }
    return List.copyOf(ranges);
  }
}
