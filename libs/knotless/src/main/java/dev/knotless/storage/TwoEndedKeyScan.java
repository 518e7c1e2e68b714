package dev.knotless.storage;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Reads the keys of a repository below a full first page in gaps, each read from both ends at once
 * until the two ends meet: page after page downward from the gap's top, and upward from its bottom.
 * The top gap starts at the first page's last key, the bottom one at the repository's lowest
 * possible key, and any further gaps at seeds between ({@link KeyRanges#seeds}).
 *
 * <p>So the pages read are those a plain descending scan reads, split between the ends: a gap of
 * {@code n} keys takes about {@code n / 200} rounds rather than {@code n / 100}, and its ends
 * overlap by at most the one page each reads in the round they meet. When the keys left in a gap
 * fit a page (by the density read so far), only its downward end reads on, so the meeting costs no
 * page the plain scan would not read. Every round's pages go out together and are all back before
 * the next round, and merged in a fixed order.
 *
 * <p>Hostile replies: a downward page must list keys strictly below its cursor in descending order,
 * or the read fails naming the key; an upward page that does not list keys above its cursor in
 * ascending order (a PDS that ignores {@code reverse}) is dropped, and its gap is read downward
 * alone. A key seen twice is kept once. Not thread-safe; one scan per instance.
 */
final class TwoEndedKeyScan {
  /** Keys left in a gap that one downward page is trusted to cover. */
  static final int ONE_PAGE = 70;

  private final RangeScanner.PageSource source;
  private final String prefix;
  private final Executor executor;
  private final List<Gap> gaps = new ArrayList<>();
  private final Set<String> seen = new HashSet<>();
  private int keysRead;
  private int rounds;
  private int requests;

  /** Keys not yet known to be read lie strictly between {@code lo} and {@code hi}. */
  private static final class Gap {
    String hi;
    String lo;
    boolean upward = true;
    boolean closed;
    final List<Record> down = new ArrayList<>();
    final List<Record> up = new ArrayList<>();

    Gap(String hi, String lo) {
      this.hi = hi;
      this.lo = lo;
    }
  }

  /**
   * @param last the first page's last key
   * @param seeds cursors between {@code last} and the prefix, descending: each splits a gap
   */
  TwoEndedKeyScan(
      RangeScanner.PageSource source,
      String key,
      String last,
      List<String> seeds,
      int firstPageKeys,
      Executor executor) {
    this.source = source;
    this.prefix = Keys.prefix(key);
    this.executor = executor;
    this.keysRead = firstPageKeys;
    String hi = last;
    for (String seed : seeds) {
      gaps.add(new Gap(hi, below(seed)));
      hi = seed;
    }
    gaps.add(new Gap(hi, prefix));
  }

  /**
   * The upward cursor at a seed: just below it, so a key equal to the seed is read upward and the
   * downward end, listing strictly below the seed, does not read it again.
   */
  static String below(String seed) {
    char c = seed.charAt(seed.length() - 1);
    return seed.substring(0, seed.length() - 1) + (char) (c - 1) + "~";
  }

  /** Reads every gap to its end; the records in descending key order. */
  List<Record> run() throws IOException {
    while (true) {
      List<Gap> open = gaps.stream().filter(g -> !g.closed).toList();
      if (open.isEmpty()) {
        break;
      }
      rounds++;
      List<CompletableFuture<RecordPage>> downs = new ArrayList<>();
      List<CompletableFuture<Optional<RecordPage>>> ups = new ArrayList<>();
      for (Gap g : open) {
        downs.add(Threads.async(() -> source.below(g.hi), executor));
        requests++;
        boolean up = g.upward && expectedIn(g) > ONE_PAGE;
        ups.add(up ? Threads.async(() -> source.above(g.lo), executor) : null);
        requests += up ? 1 : 0;
      }
      for (int i = 0; i < open.size(); i++) {
        Gap g = open.get(i);
        mergeDown(g, RangeScanner.join(downs.get(i)));
        Optional<RecordPage> up = ups.get(i) == null ? null : RangeScanner.join(ups.get(i));
        if (up != null && !g.closed) {
          mergeUp(g, up);
        }
      }
    }
    List<Record> out = new ArrayList<>();
    for (Gap g : gaps) {
      out.addAll(g.down);
      List<Record> up = new ArrayList<>(g.up);
      Collections.reverse(up);
      out.addAll(up);
    }
    return out;
  }

  int rounds() {
    return rounds;
  }

  int requests() {
    return requests;
  }

  private void mergeDown(Gap g, RecordPage page) throws IOException {
    for (Record r : page.records()) {
      String k = r.rkey();
      if (k.compareTo(g.hi) >= 0) {
        throw new IOException(
            "the PDS listed " + k + " below the cursor " + g.hi + ", where it does not belong");
      }
      if (!k.startsWith(prefix) || k.compareTo(g.lo) <= 0) {
        g.closed = true;
        return;
      }
      add(g.down, r);
      g.hi = k;
    }
    if (page.records().size() < RangeScanner.PAGE) {
      // Nothing at all below: the gap's bottom has been passed.
      g.closed = true;
    }
  }

  private void mergeUp(Gap g, Optional<RecordPage> page) {
    if (page.isEmpty()) {
      g.upward = false;
      return;
    }
    List<Record> records = page.get().records();
    String previous = g.lo;
    int meets = records.size();
    for (int i = 0; i < records.size(); i++) {
      String k = records.get(i).rkey();
      if (k.compareTo(previous) <= 0) {
        // Not ascending above the cursor: upward listing is not to be trusted here.
        g.upward = false;
        return;
      }
      if (k.compareTo(g.hi) >= 0) {
        meets = i;
        break;
      }
      previous = k;
    }
    for (int i = 0; i < meets; i++) {
      add(g.up, records.get(i));
    }
    if (meets > 0) {
      g.lo = records.get(meets - 1).rkey();
    }
    if (meets < records.size()) {
      g.closed = true;
    } else if (records.size() < RangeScanner.PAGE) {
      // Upward ran out without meeting the gap's top: the keys moved under us. Read down alone.
      g.upward = false;
    }
  }

  private void add(List<Record> to, Record r) {
    if (seen.add(r.rkey())) {
      to.add(r);
      keysRead++;
    }
  }

  /**
   * The keys expected in the gap, at the density of those read so far over the part of the hash
   * range they cover.
   */
  private double expectedIn(Gap g) {
    double open = 0;
    for (Gap o : gaps) {
      if (!o.closed) {
        open += span(o);
      }
    }
    double covered = 1.0 - open;
    if (covered <= 0) {
      return Double.MAX_VALUE;
    }
    return keysRead / covered * span(g);
  }

  private double span(Gap g) {
    return Math.max(0, position(g.hi) - position(g.lo));
  }

  private double position(String k) {
    return k.startsWith(prefix) ? KeyRanges.position(k.substring(prefix.length())) : 0;
  }
}
