package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

class TidTest {

  @Test
  void aTidIsThirteenSortableBase32Characters() {
    String tid = Tid.next();
    assertEquals(13, tid.length());
    assertTrue(tid.matches("[234567a-j][234567a-z]{12}"), tid);
    assertTrue(Tid.isValid(tid));
  }

  @Test
  void tidsMintedInARowAreStrictlyIncreasingAsStrings() {
    String prev = Tid.next();
    for (int i = 0; i < 10_000; i++) {
      String t = Tid.next();
      assertTrue(t.compareTo(prev) > 0, prev + " then " + t);
      prev = t;
    }
  }

  @Test
  void tidsMintedOnManyThreadsAreAllDistinct() throws Exception {
    ConcurrentLinkedQueue<String> all = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread th =
          new Thread(
              () -> {
                for (int i = 0; i < 5000; i++) {
                  all.add(Tid.next());
                }
              });
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join();
    }
    Set<String> distinct = new HashSet<>(all);
    assertEquals(20_000, distinct.size());
  }

  @Test
  void aTidRemembersWhenItWasMinted() {
    Instant before = Instant.now();
    Instant minted = Tid.instant(Tid.next());
    assertTrue(Duration.between(before, minted).abs().toSeconds() < 5, minted.toString());
  }

  @Test
  void encodingAndDecodingRoundTrip() {
    String t = Tid.of(1_700_000_000_123_456L, 7);
    assertEquals(1_700_000_000_123_456L, Tid.micros(t));
    // The atproto spec's example TID, decoded independently (Python): 1688137381887007 µs, clock 6.
    assertEquals(1_688_137_381_887_007L, Tid.micros("3jzfcijpj2z2a"));
    assertEquals("3jzfcijpj2z2a", Tid.of(1_688_137_381_887_007L, 6));
  }

  @Test
  void malformedTidsAreRefused() {
    assertFalse(Tid.isValid("3jzfcijpj2z2"));
    assertFalse(Tid.isValid("3jzfcijpj2z2a1"));
    assertFalse(Tid.isValid("3jzfcijpj2z21"));
    assertFalse(Tid.isValid("zjzfcijpj2z2a"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Tid.micros("not-a-tid"));
    assertTrue(e.getMessage().contains("not-a-tid"));
  }
}
