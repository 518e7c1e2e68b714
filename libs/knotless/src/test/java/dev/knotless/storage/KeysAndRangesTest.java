package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Hashes;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.RecordPage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class KeysAndRangesTest {
  private static final String KEY = "3kabcdefghijk";

  @Test
  void refAndClaimKeysAreTheRepositoryKeyThenTheRefHash() {
    String h = Hashes.h("refs/heads/main");
    assertEquals(26, h.length());
    assertEquals(KEY + "." + h, Keys.ref(KEY, "refs/heads/main"));
    assertEquals(
        KEY + "." + h + ".1700000000000", Keys.claim(KEY, "refs/heads/main", 1700000000000L));
  }

  @Test
  void theScanStartsJustAboveEveryKeyOfTheRepository() {
    String start = Keys.scanStart(KEY);
    assertTrue(start.compareTo(Keys.ref(KEY, "refs/heads/zzz")) > 0);
    assertTrue(start.compareTo(Keys.pack(KEY, "zzzzzzzzzzzzz")) > 0);
  }

  @Test
  void badRepositoryNamesAreRefusedNamingTheProblem() {
    assertEquals("repo-1.x_y~z", Keys.validateName("repo-1.x_y~z"));
    assertThrows(IllegalArgumentException.class, () -> Keys.validateName(""));
    assertThrows(IllegalArgumentException.class, () -> Keys.validateName("."));
    assertThrows(IllegalArgumentException.class, () -> Keys.validateName(".."));
    var e = assertThrows(IllegalArgumentException.class, () -> Keys.validateName("a/b"));
    assertTrue(e.getMessage().contains("a/b"));
    assertThrows(IllegalArgumentException.class, () -> Keys.validateName("x".repeat(101)));
  }

  @Test
  void theKeysLeftBelowAFullFirstPageAreCutIntoGapsOfAbout170() {
    // 590 refs end their first page about 17% down, in 'u': about 490 left, five more pages, and
    // three gaps (two seeds), each below the one before and above the repository's prefix.
    assertEquals(5, KeyRanges.pagesLeft(KEY, KEY + ".um22"));
    assertEquals(3, KeyRanges.gapsFor(KEY, KEY + ".um22"));
    List<String> seeds = KeyRanges.seeds(KEY, KEY + ".um22", 3);
    assertEquals(2, seeds.size());
    assertTrue(seeds.get(0).compareTo(KEY + ".um22") < 0);
    assertTrue(seeds.get(1).compareTo(seeds.get(0)) < 0);
    assertTrue(seeds.get(1).compareTo(Keys.prefix(KEY)) > 0);
    // About 130 refs: one more page, the short one, and one gap.
    assertEquals(1, KeyRanges.pagesLeft(KEY, KEY + ".bbbb"));
    assertEquals(1, KeyRanges.gapsFor(KEY, KEY + ".bbbb"));
    assertEquals(List.of(), KeyRanges.seeds(KEY, KEY + ".bbbb", 1));
    // Some 6,400 keys: no more than four gaps, eight requests at once.
    assertEquals(KeyRanges.MAX_GAPS, KeyRanges.gapsFor(KEY, KEY + ".zm22"));
  }

  @Test
  void everyRefIsReadOnceWhateverTheSizeAndNoneOfOtherRepositories() throws Exception {
    var pool = Executors.newFixedThreadPool(8);
    try {
      for (int n : List.of(100, 101, 150, 200, 250, 590, 1000, 3000)) {
        Listing listing = new Listing(refs(n), true);
        List<Record> all = RangeScanner.scanSplit(listing, KEY, pool);
        assertAllOnceInOrder(n, all);
        // A plain scan reads n / 100 + 1 pages; the two ends of each gap cost at most one more.
        int plain = n / RangeScanner.PAGE + 1;
        int gaps = n <= 100 ? 0 : KeyRanges.gapsFor(KEY, all.get(99).rkey());
        assertTrue(listing.pages <= plain + gaps, n + " refs: " + listing.pages + " pages");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aPdsThatIgnoresReverseIsReadDownwardAlone() throws Exception {
    var pool = Executors.newFixedThreadPool(8);
    try {
      Listing listing = new Listing(refs(590), false);
      assertAllOnceInOrder(590, RangeScanner.scanSplit(listing, KEY, pool));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aPdsListingKeysAboveTheCursorFailsTheReadNamingTheKey() throws Exception {
    TreeSet<String> keys = refs(590);
    RangeScanner.PageSource liar =
        cursor -> {
          // Always the repository's first page, whatever the cursor: a scan would never end.
          List<Record> page = new ArrayList<>();
          for (String k : keys.descendingSet().tailSet(Keys.scanStart(KEY), false)) {
            if (page.size() == RangeScanner.PAGE) {
              break;
            }
            page.add(record(k));
          }
          return new RecordPage(page, null);
        };
    var pool = Executors.newFixedThreadPool(8);
    try {
      var e =
          assertThrows(java.io.IOException.class, () -> RangeScanner.scanSplit(liar, KEY, pool));
      String top = keys.descendingSet().tailSet(Keys.scanStart(KEY), false).first();
      assertTrue(e.getMessage().contains(top), e.getMessage());
    } finally {
      pool.shutdownNow();
    }
  }

  private static TreeSet<String> refs(int n) {
    TreeSet<String> keys = new TreeSet<>();
    for (int i = 0; i < n; i++) {
      keys.add(Keys.ref(KEY, "refs/heads/b" + i));
    }
    // Neighbours in the same collection, below and above the repository's keys.
    keys.add("3kaaaaaaaaaaa.zzzz");
    keys.add("3kzzzzzzzzzzz.aaaa");
    return keys;
  }

  private static void assertAllOnceInOrder(int n, List<Record> all) {
    assertEquals(n, all.size());
    assertEquals(n, all.stream().map(Record::rkey).distinct().count());
    assertFalse(all.stream().anyMatch(r -> !r.rkey().startsWith(KEY + ".")));
    List<String> sorted = all.stream().map(Record::rkey).sorted(Comparator.reverseOrder()).toList();
    assertEquals(sorted, all.stream().map(Record::rkey).toList());
  }

  private static Record record(String k) {
    return new Record("at://did:plc:x/dev.knotless.ref/" + k, "c", null);
  }

  /** A collection listed as the reference PDS lists it, counting the pages it serves. */
  private static final class Listing implements RangeScanner.PageSource {
    private final TreeSet<String> keys;
    private final boolean reverse;
    private int pages;

    Listing(TreeSet<String> keys, boolean reverse) {
      this.keys = keys;
      this.reverse = reverse;
    }

    @Override
    public synchronized RecordPage below(String cursor) {
      pages++;
      return page(keys.descendingSet().tailSet(cursor, false));
    }

    @Override
    public synchronized java.util.Optional<RecordPage> above(String cursor) {
      pages++;
      // Ignoring reverse, a PDS lists downward from the cursor.
      return java.util.Optional.of(
          page(
              reverse ? keys.tailSet(cursor, false) : keys.descendingSet().tailSet(cursor, false)));
    }

    private static RecordPage page(java.util.SortedSet<String> from) {
      List<Record> page = new ArrayList<>();
      for (String k : from) {
        if (page.size() == RangeScanner.PAGE) {
          break;
        }
        page.add(record(k));
      }
      return new RecordPage(page, page.isEmpty() ? null : page.get(page.size() - 1).rkey());
    }
  }

  @Test
  void aNameThatIsNoNameIsQuotedWithEscapesInItsError() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Keys.validateName("evil\nname\u001b"));
    assertEquals(
        "repository name may hold only letters, digits and . _ ~ -: \"evil\\nname\\u001b\"",
        e.getMessage());
    IllegalArgumentException longer =
        assertThrows(IllegalArgumentException.class, () -> Keys.validateName("a".repeat(5000)));
    assertTrue(longer.getMessage().length() < 300, longer.getMessage());
    assertTrue(longer.getMessage().endsWith("(5000 characters)"), longer.getMessage());
  }
}
