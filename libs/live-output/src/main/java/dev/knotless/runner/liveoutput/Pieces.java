package dev.knotless.runner.liveoutput;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts masked text into pieces of at most {@link #MAX_PIECE_BYTES} bytes of UTF-8, the most one
 * putRunOutput call carries. Lines are packed whole where they fit; a line longer than a piece is
 * cut between characters, never inside one. Pure and thread-safe.
 */
public final class Pieces {
  /** The most bytes of text one piece holds. */
  public static final int MAX_PIECE_BYTES = 16_000;

  private Pieces() {}

  /**
   * Packs lines into pieces, in order.
   *
   * @param lines masked lines, each with its ending and log offset
   * @param max the most bytes a piece may hold (at least 4, the longest UTF-8 character)
   * @return the pieces, each at most {@code max} bytes of UTF-8, with the offset of its start
   */
  public static List<Piece> pack(List<Piece> lines, int max) {
    if (max < 4) {
      throw new IllegalArgumentException("a piece must hold at least 4 bytes, got " + max);
    }
    List<Piece> pieces = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    long currentOffset = 0;
    int currentBytes = 0;
    for (Piece line : lines) {
      int bytes = line.bytes();
      if (currentBytes > 0 && currentBytes + bytes <= max) {
        current.append(line.text());
        currentBytes += bytes;
        continue;
      }
      if (currentBytes > 0) {
        pieces.add(new Piece(currentOffset, current.toString()));
        current.setLength(0);
        currentBytes = 0;
      }
      if (bytes <= max) {
        current.append(line.text());
        currentOffset = line.offset();
        currentBytes = bytes;
        continue;
      }
      // Offsets inside a cut line count masked bytes; masking rarely changes a line's length.
      long at = line.offset();
      List<String> cut = cut(line.text(), max);
      for (String part : cut.subList(0, cut.size() - 1)) {
        pieces.add(new Piece(at, part));
        at += utf8Length(part);
      }
      String tail = cut.get(cut.size() - 1);
      current.append(tail);
      currentOffset = at;
      currentBytes = utf8Length(tail);
    }
    if (currentBytes > 0) {
      pieces.add(new Piece(currentOffset, current.toString()));
    }
    return pieces;
  }

  /** The length of {@code s} in UTF-8 bytes. */
  public static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  private static List<String> cut(String line, int max) {
    List<String> out = new ArrayList<>();
    int start = 0;
    int bytes = 0;
    int i = 0;
    while (i < line.length()) {
      int cp = line.codePointAt(i);
      int cpBytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (bytes + cpBytes > max) {
        out.add(line.substring(start, i));
        start = i;
        bytes = 0;
      }
      bytes += cpBytes;
      i += Character.charCount(cp);
    }
    out.add(line.substring(start));
    return out;
  }
}
