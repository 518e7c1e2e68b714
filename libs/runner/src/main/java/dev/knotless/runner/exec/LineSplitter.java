package dev.knotless.runner.exec;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Cuts a byte stream into whole lines, however the writes were split: a line ends at {@code \n},
 * {@code \r} or {@code \r\n}. Masking works on these lines, so a secret written in pieces is seen
 * whole. A line with no break past {@link #MAX_LINE} bytes is let out as it is, so one endless line
 * cannot hold the log back or fill the heap. Bytes are decoded as UTF-8 (a malformed sequence
 * becomes U+FFFD). Not thread-safe: one splitter serves one stream.
 */
final class LineSplitter {

  /** The longest line held back waiting for its break, in bytes. */
  static final int MAX_LINE = 1 << 20;

  /** Receives each line and the break that ended it ({@code ""} for a line cut at the limit). */
  interface Sink {
    void line(String text, String lineBreak);
  }

  private final Sink sink;
  private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
  private boolean afterCr;

  LineSplitter(Sink sink) {
    this.sink = sink;
  }

  void feed(byte[] bytes, int from, int length) {
    for (int i = from; i < from + length; i++) {
      byte b = bytes[i];
      if (afterCr) {
        afterCr = false;
        if (b == '\n') {
          emit("\r\n");
          continue;
        }
        emit("\r");
      }
      if (b == '\r') {
        // Wait for the next byte: \r\n is one break, a lone \r (a progress bar) another.
        afterCr = true;
      } else if (b == '\n') {
        emit("\n");
      } else {
        pending.write(b);
        if (pending.size() >= MAX_LINE) {
          emit("");
        }
      }
    }
  }

  /**
   * Lets out what is left at the end of the stream, ended with a newline so the log stays whole.
   */
  void finish() {
    if (afterCr) {
      afterCr = false;
      emit("\r");
    }
    if (pending.size() > 0) {
      emit("\n");
    }
  }

  /**
   * Takes what is held back of an unended line, as bytes (a pending {@code \r} included), and
   * forgets it: for a caller that stops splitting and keeps the raw stream instead.
   */
  byte[] drain() {
    if (afterCr) {
      afterCr = false;
      pending.write('\r');
    }
    byte[] out = pending.toByteArray();
    pending.reset();
    return out;
  }

  private void emit(String lineBreak) {
    String text = pending.toString(StandardCharsets.UTF_8);
    pending.reset();
    sink.line(text, lineBreak);
  }
}
