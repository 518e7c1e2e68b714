package dev.knotless.runner.liveoutput;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineCutterTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> s(List<LineCutter.Line> lines) {
    return lines.stream().map(l -> new String(l.bytes(), StandardCharsets.UTF_8)).toList();
  }

  @Test
  void onlyWholeLinesGoAndALineMayEndWithACarriageReturn() {
    LineCutter c = new LineCutter();
    assertEquals(List.of("one\n", "two\r"), s(c.feed(0, b("one\ntwo\rthr"))));
    List<LineCutter.Line> third = c.feed(11, b("ee\n"));
    assertEquals(List.of("three\n"), s(third));
    assertEquals(8, third.get(0).offset());
  }

  @Test
  void bytesSeenBeforeAreNotSentTwice() {
    LineCutter c = new LineCutter();
    c.feed(0, b("abc\nde"));
    assertEquals(List.of("def\n"), s(c.feed(4, b("def\n"))));
    assertEquals(List.of(), s(c.feed(0, b("abc\n"))));
  }

  @Test
  void aLineWhoseStartWasMissedIsLetGo() {
    LineCutter c = new LineCutter();
    c.feed(0, b("abc"));
    assertEquals(List.of("next\n"), s(c.feed(10, b("tail\nnext\n"))));
    assertEquals(3 + 7 + 5, c.droppedBytes());
  }

  @Test
  void aLineUnendedPastAMegabyteIsLetGoUpToItsEnding() {
    LineCutter c = new LineCutter();
    byte[] big = new byte[LineCutter.MAX_UNENDED + 1];
    Arrays.fill(big, (byte) 'x');
    assertEquals(List.of(), s(c.feed(0, big)));
    assertEquals(List.of("after\n"), s(c.feed(big.length, b("more\nafter\n"))));
    assertEquals(0, c.finish().bytes().length);
  }

  @Test
  void theUnendedLastLineGoesAtTheEnd() {
    LineCutter c = new LineCutter();
    c.feed(0, b("a\nlast"));
    LineCutter.Line last = c.finish();
    assertEquals("last", new String(last.bytes(), StandardCharsets.UTF_8));
    assertEquals(2, last.offset());
  }
}
