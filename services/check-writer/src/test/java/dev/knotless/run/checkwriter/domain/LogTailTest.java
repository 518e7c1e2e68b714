package dev.knotless.run.checkwriter.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class LogTailTest {
  @Test
  void bytesRightAfterTheLogAreAllNew() {
    assertEquals(new LogTail(0, 0), LogTail.of(100, 100, 10));
  }

  @Test
  void anEventWhollySeenBeforeAddsNothing() {
    LogTail t = LogTail.of(100, 40, 60);
    assertFalse(t.extendsLog());
    assertEquals(0, t.gap());
  }

  @Test
  void anOverlappingEventAddsOnlyItsUnseenTail() {
    assertEquals(new LogTail(25, 0), LogTail.of(100, 75, 50));
  }

  @Test
  void anEventPastTheEndIsAGapAndAddsNothing() {
    LogTail t = LogTail.of(100, 130, 10);
    assertFalse(t.extendsLog());
    assertEquals(30, t.gap());
  }

  @Test
  void whatTheLogHoldsOfAnEventIsWhatIsComparedWithIt() {
    assertEquals(60, LogTail.of(100, 40, 60).held(60));
    assertEquals(25, LogTail.of(100, 75, 50).held(50));
    assertEquals(0, LogTail.of(100, 100, 10).held(10));
    assertEquals(0, LogTail.of(100, 130, 10).held(10));
  }

  @Test
  void theFirstDifferingByteIsFoundAndAgreeingBytesHaveNone() {
    byte[] held = "pod p\ncache: restored\n".getBytes();
    assertEquals(-1, LogTail.firstDifference(held, "pod p\ncache: restored\nmore".getBytes()));
    assertEquals(13, LogTail.firstDifference(held, "pod p\ncache: adopted\n".getBytes()));
  }

  @Test
  void aNegativeOffsetIsRefusedByName() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> LogTail.of(0, -1, 1));
    assertEquals("an output offset must not be negative, got -1", e.getMessage());
  }
}
