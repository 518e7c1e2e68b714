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
  void theRestOfAFullFirstPageIsCutIntoRangesCoveringEveryLowerLetterOnce() {
    for (String last : List.of(".qabc", ".um22", ".z222", ".zzzz", ".c7aa", ".3xyz")) {
      List<KeyRanges.Range> ranges = KeyRanges.after(KEY, KEY + last);
      assertTrue(ranges.size() >= 1 && ranges.size() <= KeyRanges.MAX_RANGES, last);
      assertEquals(KEY + last, ranges.get(0).cursor());
      assertEquals(null, ranges.get(ranges.size() - 1).floor());
      // Every key below the first page's last belongs to exactly one range.
      for (char c : KeyRanges.SORTED_ALPHABET.toCharArray()) {
        for (String rest : List.of("2222", "mmmm", "zzzz")) {
          String k = KEY + "." + c + rest;
          if (k.compareTo(KEY + last) >= 0) {
            continue;
          }
          int holders = 0;
          for (KeyRanges.Range r : ranges) {
            if (k.compareTo(r.cursor()) < 0 && r.holds(Keys.prefix(KEY), k)) {
              holders++;
            }
          }
          assertEquals(1, holders, "key " + k + " after " + last);
        }
      }
    }
  }

  @Test
  void asManyRangesAsTheFirstPagesDensityNeedsAtEightyKeysEach() {
    // 100 keys from the top down into 'q': about 10 a letter, 326 keys in all, 226 left below:
    // three ranges of 70 to 74 and the last letter alone.
    assertEquals(4, KeyRanges.after(KEY, KEY + ".qabc").size());
    // 590 refs end their first page about 17% down, in 'u': about 18 a letter, so ranges of four
    // letters (74 keys), seven of them.
    assertEquals(7, KeyRanges.after(KEY, KEY + ".um22").size());
  }

  @Test
  void aRestThatFitsOneRangeIsReadAsOnePageAfterPage() {
    // A first page ending low in the alphabet leaves a few keys: one range, a plain scan.
    List<KeyRanges.Range> ranges = KeyRanges.after(KEY, KEY + ".3xyz");
    assertEquals(List.of(new KeyRanges.Range(KEY + ".3xyz", null)), ranges);
    // About 130 refs: the first page ends in 'b', 23% up; the 30 left are one range.
    assertEquals(1, KeyRanges.after(KEY, KEY + ".bbbb").size());
  }

  @Test
  void pagesLeftIsWhatAPlainScanWouldStillRead() {
    // 590 refs: about 490 left below the first page, five more pages.
    assertEquals(5, KeyRanges.pagesLeft(KEY, KEY + ".um22"));
    // About 130 refs: one more page, the short one.
    assertEquals(1, KeyRanges.pagesLeft(KEY, KEY + ".bbbb"));
  }

  @Test
  void rangesAreReadSideBySideOnlyWhereTheWaitsTheySaveOutweighTheWorkTheyAdd() {
    long ms = 1_000_000;
    // Nothing measured, or no more ranges than pages: side by side.
    assertTrue(RangeScanner.Pace.UNKNOWN.rangesPay(8, 5));
    assertTrue(new RangeScanner.Pace(1 * ms, 40 * ms).rangesPay(5, 5));
    // A link with almost no wait, where a page is mostly the PDS's work: page after page.
    assertFalse(new RangeScanner.Pace(8 * ms, 30 * ms).rangesPay(8, 5));
    // 60 ms of wait a request: three more requests of 80 ms cost less than four waits saved.
    assertTrue(new RangeScanner.Pace(62 * ms, 80 * ms).rangesPay(8, 5));
    // A slow page with the same wait: they no longer pay.
    assertFalse(new RangeScanner.Pace(62 * ms, 120 * ms).rangesPay(8, 5));
  }

  @Test
  void aRepositoryTooDenseForEightRangesOfEightyIsCutIntoEightEvenOnes() {
    // 100 keys within the top letter's upper half: some 6,400 keys, over 700 per range.
    List<KeyRanges.Range> ranges = KeyRanges.after(KEY, KEY + ".zm22");
    assertEquals(8, ranges.size());
    assertEquals(KEY + ".w", ranges.get(1).cursor());
  }

  @Test
  void aSplitScanReadsEveryRefOnceAndStopsAtOtherRepositories() throws Exception {
    TreeSet<String> keys = new TreeSet<>();
    for (int i = 0; i < 590; i++) {
      keys.add(Keys.ref(KEY, "refs/heads/b" + i));
    }
    keys.add("3kaaaaaaaaaaa.zzzz");
    keys.add("3kzzzzzzzzzzz.aaaa");
    RangeScanner.PageSource source =
        cursor -> {
          List<Record> page = new ArrayList<>();
          for (String k : keys.descendingSet().tailSet(cursor, false)) {
            if (page.size() == RangeScanner.PAGE) {
              break;
            }
            page.add(new Record("at://did:plc:x/dev.knotless.ref/" + k, "c", null));
          }
          return new RecordPage(page, page.isEmpty() ? null : page.get(page.size() - 1).rkey());
        };
    var pool = Executors.newFixedThreadPool(8);
    try {
      List<Record> all = RangeScanner.scanSplit(source, KEY, pool);
      assertEquals(590, all.size());
      assertEquals(590, all.stream().map(Record::rkey).distinct().count());
      assertFalse(all.stream().anyMatch(r -> !r.rkey().startsWith(KEY + ".")));
      List<String> sorted =
          all.stream().map(Record::rkey).sorted(Comparator.reverseOrder()).toList();
      assertEquals(sorted, all.stream().map(Record::rkey).toList());
    } finally {
      pool.shutdownNow();
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
