package dev.knotless.runner.liveoutput;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PiecesTest {
  @Test
  void linesArePackedWholeIntoPiecesOfAtMostTheLimit() {
    List<Piece> pieces =
        Pieces.pack(
            List.of(new Piece(0, "aaaa\n"), new Piece(5, "bbbb\n"), new Piece(10, "cccc\n")), 10);
    assertEquals(List.of(new Piece(0, "aaaa\nbbbb\n"), new Piece(10, "cccc\n")), pieces);
  }

  @Test
  void aLongLineIsCutBetweenCharactersNeverInsideOne() {
    String line = "é".repeat(20_000) + "\n";
    List<Piece> pieces = Pieces.pack(List.of(new Piece(7, line)), Pieces.MAX_PIECE_BYTES);
    for (Piece p : pieces) {
      assertTrue(p.bytes() <= 16_000, "piece of " + p.bytes());
    }
    assertEquals(line, String.join("", pieces.stream().map(Piece::text).toList()));
    assertEquals(3, pieces.size());
    assertEquals(7 + 16_000, pieces.get(1).offset());
  }
}
