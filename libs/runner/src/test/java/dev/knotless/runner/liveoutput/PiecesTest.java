package dev.knotless.runner.liveoutput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PiecesTest {
  @Test
  void linesArePackedWholeIntoPiecesOfAtMostTheLimit() {
    List<String> pieces = Pieces.pack(List.of("aaaa\n", "bbbb\n", "cccc\n"), 10);
    assertEquals(List.of("aaaa\nbbbb\n", "cccc\n"), pieces);
  }

  @Test
  void aLongLineIsCutBetweenCharactersNeverInsideOne() {
    String line = "é".repeat(20_000) + "\n";
    List<String> pieces = Pieces.pack(List.of(line), Pieces.MAX_PIECE_BYTES);
    for (String p : pieces) {
      assertTrue(Pieces.utf8Length(p) <= 16_000, "piece of " + Pieces.utf8Length(p));
    }
    assertEquals(line, String.join("", pieces));
    assertEquals(3, pieces.size());
  }
}
