package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineSplitterTest {

  private final List<String> lines = new ArrayList<>();
  private final LineSplitter splitter =
      new LineSplitter((text, lineBreak) -> lines.add(text + "|" + lineBreak.replace("\r", "CR")));

  private void feed(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    splitter.feed(b, 0, b.length);
  }

  @Test
  void lineWrittenInPiecesComesOutWhole() {
    feed("tok");
    feed("en=abc");
    feed("def\nnext");
    splitter.finish();
    assertEquals(List.of("token=abcdef|\n", "next|\n"), lines);
  }

  @Test
  void carriageReturnEndsALineAndCrLfIsOneBreak() {
    feed("10%\r20%\r");
    feed("\ndone\r");
    splitter.finish();
    assertEquals(List.of("10%|CR", "20%|CR\n", "done|CR"), lines);
  }

  @Test
  void multiByteCharacterSplitAcrossWritesSurvives() {
    byte[] b = "é\n".getBytes(StandardCharsets.UTF_8);
    splitter.feed(b, 0, 1);
    splitter.feed(b, 1, b.length - 1);
    assertEquals(List.of("é|\n"), lines);
  }

  @Test
  void endlessLineIsLetOutAtTheLimit() {
    byte[] chunk = new byte[LineSplitter.MAX_LINE + 10];
    java.util.Arrays.fill(chunk, (byte) 'x');
    splitter.feed(chunk, 0, chunk.length);
    splitter.finish();
    assertEquals(2, lines.size());
    assertEquals(LineSplitter.MAX_LINE + 1, lines.get(0).length());
    assertEquals("xxxxxxxxxx|\n", lines.get(1));
  }
}
