package dev.knotless.storage;

import java.util.ArrayList;
import java.util.List;

/**
 * Where the rest of a ref range lies, after a full first page. Ref keys end in the base32 of a
 * hash, so their letters spread evenly over the alphabet, and a key's first letters say where in
 * the range it lies ({@link #position}). A first descending page of {@value RangeScanner#PAGE} keys
 * spans the hashes from the top of the alphabet down to its last key, which says how densely keys
 * lie, and so how many are left below it. Pure and thread-safe.
 */
public final class KeyRanges {
  /** The base32 alphabet in byte order, the order the PDS lists keys in. */
  static final String SORTED_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz";

  /** The most gaps read at once, each from both ends: eight requests side by side. */
  public static final int MAX_GAPS = 4;

  /**
   * The keys a gap is planned to hold: 170, so its two ends, a page of 100 each, meet in one round
   * but in about one gap in a hundred (keys are spread by a hash).
   */
  static final int GAP_TARGET = 170;

  private KeyRanges() {}

  /**
   * How many keys a plain scan would still read below {@code last}, the key ending a full first
   * page, at the density that page shows.
   */
  public static double keysLeft(String key, String last) {
    double position = position(hash(key, last));
    double above = 1.0 - position;
    return above <= 0 ? Double.MAX_VALUE : RangeScanner.PAGE * position / above;
  }

  /**
   * How many pages of 100 a plain scan would still take below {@code last}: the keys expected below
   * it, plus the one page that finds the end.
   */
  public static int pagesLeft(String key, String last) {
    double left = keysLeft(key, last);
    return (int) Math.min(Integer.MAX_VALUE, Math.floor(left / RangeScanner.PAGE) + 1);
  }

  /** The gaps the keys below {@code last} fill at about {@value #GAP_TARGET} each, 1 to 4. */
  public static int gapsFor(String key, String last) {
    double left = keysLeft(key, last);
    return (int) Math.max(1, Math.min(MAX_GAPS, Math.ceil(left / GAP_TARGET)));
  }

  /**
   * The cursors that cut the hash range below {@code last} into {@code gaps} parts of the same
   * span, highest first: {@code gaps - 1} of them, none when {@code last}'s hash does not start
   * with base32 letters.
   */
  public static List<String> seeds(String key, String last, int gaps) {
    double top = position(hash(key, last));
    List<String> seeds = new ArrayList<>();
    for (int i = gaps - 1; i >= 1 && top > 0; i--) {
      String seed = Keys.prefix(key) + letters(top * i / gaps);
      if (seed.compareTo(last) < 0 && (seeds.isEmpty() || seed.compareTo(seeds.get(0)) < 0)) {
        seeds.add(seed);
      }
    }
    return List.copyOf(seeds);
  }

  private static String hash(String key, String last) {
    String prefix = Keys.prefix(key);
    if (!last.startsWith(prefix) || last.length() == prefix.length()) {
      throw new IllegalArgumentException("not a key of repository " + key + ": " + last);
    }
    return last.substring(prefix.length());
  }

  /** Four letters whose position is about {@code p}, in [0, 1). */
  static String letters(double p) {
    StringBuilder s = new StringBuilder();
    double rest = p;
    for (int i = 0; i < 4; i++) {
      rest *= 32;
      int idx = (int) Math.min(31, Math.floor(rest));
      s.append(SORTED_ALPHABET.charAt(idx));
      rest -= idx;
    }
    return s.toString();
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
