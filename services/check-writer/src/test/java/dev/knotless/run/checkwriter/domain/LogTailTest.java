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
  void aNegativeOffsetIsRefusedByName() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> LogTail.of(0, -1, 1));
    assertEquals("an output offset must not be negative, got -1", e.getMessage());
  }
}
