package dev.knotless.storage;

import java.util.ArrayList;
import java.util.List;

/**
 * How the rest of a ref range is cut into ranges read side by side. Ref keys end in the base32 of a
 * hash, so their first letter spreads evenly over the alphabet. After a first descending page that
 * ended at {@code last}, the keys left are those below it; they are grouped by the first letter of
 * the hash into up to eight ranges.
 *
 * <p>How many: the first page's {@value RangeScanner#PAGE} keys span the hashes from the top of the
 * alphabet down to {@code last}, which says how densely keys lie, and so how many are left below
 * it. Letters are grouped, from the top down, into as few ranges as hold about {@value
 * #RANGE_TARGET} expected keys each, so each range is likely one page. More ranges than that would
 * each still ask for a page of 100 and cost the PDS the same work again, which is what made eight
 * ranges slower than pages one after another on a fast link: the work grows with the requests,
 * while the round trips are already down to one. A rest that fits one range is read as one range,
 * page after page, as a plain scan. When more than eight would be needed, eight even groups of
 * letters are read, each paging on as far as its keys go. Pure and thread-safe.
 */
public final class KeyRanges {
  /** The base32 alphabet in byte order, the order the PDS lists keys in. */
  static final String SORTED_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz";

  /** The most ranges read at once. */
  public static final int MAX_RANGES = 8;

  /**
   * The keys a range is planned to hold, on the density the first page showed: 80 of a page of 100,
   * so a range runs over into a second page only rarely (keys are spread by a hash, so a range
   * planned at 80 holds 100 or more about once in a hundred).
   */
  static final int RANGE_TARGET = 80;

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
   * The ranges covering every key of the repository below {@code last}, the key ending a full first
   * page.
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
    List<int[]> groups = planned(top, position(last.substring(prefix.length())));
    if (groups == null) {
      groups = even(top);
    }
    List<Range> ranges = new ArrayList<>(groups.size());
    for (int g = 0; g < groups.size(); g++) {
      int lo = groups.get(g)[0];
      int hi = groups.get(g)[1];
      String cursor = g == 0 ? last : prefix + SORTED_ALPHABET.charAt(hi + 1);
      String floor = lo == 0 ? null : prefix + SORTED_ALPHABET.charAt(lo);
      ranges.add(new Range(cursor, floor));
    }
    return List.copyOf(ranges);
  }

  /**
   * How many pages of 100 a plain scan would still take below {@code last}, the key ending a full
   * first page, at the density that page shows: the keys expected below it, plus the one page that
   * finds the end.
   */
  public static int pagesLeft(String key, String last) {
    String prefix = Keys.prefix(key);
    if (!last.startsWith(prefix) || last.length() == prefix.length()) {
      throw new IllegalArgumentException("not a key of repository " + key + ": " + last);
    }
    double position = position(last.substring(prefix.length()));
    double above = 1.0 - position;
    if (above <= 0) {
      return Integer.MAX_VALUE;
    }
    double left = RangeScanner.PAGE * position / above;
    return (int) Math.min(Integer.MAX_VALUE, Math.floor(left / RangeScanner.PAGE) + 1);
  }

  /**
   * Groups of letters [lo, hi], from {@code top} down to the first letter, each expected to hold
   * about {@link #RANGE_TARGET} keys at the density a first page ending at {@code position} shows;
   * null when that takes more than {@link #MAX_RANGES}.
   */
  static List<int[]> planned(int top, double position) {
    double above = 1.0 - position;
    // The first page's keys lie above `last`; below it, keys lie as densely.
    double perLetter = above <= 0 ? Double.MAX_VALUE : RangeScanner.PAGE / above / 32.0;
    List<int[]> groups = new ArrayList<>();
    int hi = top;
    // The top letter is only partly left: from `last` down to its start.
    double expected = perLetter * (position * 32.0 - top);
    int lo = top;
    while (true) {
      if (lo == 0) {
        groups.add(new int[] {0, hi});
        break;
      }
      if (expected + perLetter > RANGE_TARGET) {
        groups.add(new int[] {lo, hi});
        hi = lo - 1;
        lo = hi;
        expected = perLetter;
      } else {
        lo--;
        expected += perLetter;
      }
    }
    return groups.size() > MAX_RANGES ? null : groups;
  }

  /** Up to eight groups of letters of about the same size, from {@code top} down. */
  private static List<int[]> even(int top) {
    int letters = top + 1;
    int count = Math.min(MAX_RANGES, letters);
    List<int[]> groups = new ArrayList<>(count);
    int hi = top;
    for (int g = 0; g < count; g++) {
      int remainingGroups = count - g;
      int size = (hi + 1 + remainingGroups - 1) / remainingGroups;
      int lo = hi - size + 1;
      groups.add(new int[] {lo, hi});
      hi = lo - 1;
    }
    return groups;
  }

  /**
   * Where a hash lies in [0, 1), from its first four letters; a letter outside the alphabet ends
   * the reading there.
   */
  static double position(String hash) {
    double p = 0;
    double scale = 1.0 / 32;
    for (int i = 0; i < Math.min(4, hash.length()); i++) {
      int idx = SORTED_ALPHABET.indexOf(hash.charAt(i));
      if (idx < 0) {
        break;
      }
      p += idx * scale;
      scale /= 32;
    }
    return p;
  }
}
