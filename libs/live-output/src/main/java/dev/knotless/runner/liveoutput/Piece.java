package dev.knotless.runner.liveoutput;

/**
 * Masked text of whole lines and where it starts in the run's log. Immutable.
 *
 * @param offset the byte offset in the log of the first line's start
 * @param text the masked text, at most {@link Pieces#MAX_PIECE_BYTES} bytes of UTF-8
 */
public record Piece(long offset, String text) {
  /** The text's length in UTF-8 bytes. */
  public int bytes() {
    return Pieces.utf8Length(text);
  }
}
