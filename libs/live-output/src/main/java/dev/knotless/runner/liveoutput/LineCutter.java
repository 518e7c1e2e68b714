package dev.knotless.runner.liveoutput;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a run's log, fed as it is written, into whole lines: a line ends at a newline or a carriage
 * return, and keeps its ending. A line that is still unended past {@link #MAX_UNENDED} bytes is let
 * go unsent, and so is the rest of it up to its ending, since a page cannot show half a line that
 * masking may have missed.
 *
 * <p>Bytes are fed with their offset in the log: bytes seen before (a redelivery) are skipped, and
 * a gap (bytes never seen) lets the line going go, since its start is missing. Offsets are bytes.
 * Not thread-safe: one run's feed is driven by one thread.
 */
public final class LineCutter {
  /** The most bytes an unended line may hold before it is let go: one megabyte. */
  public static final int MAX_UNENDED = 1024 * 1024;

  /**
   * A whole line and its offset in the log.
   *
   * @param offset the byte offset of its first byte
   * @param bytes the line with its ending
   */
  public record Line(long offset, byte[] bytes) {}

  private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
  private long partialStart;
  private long next;
  private boolean discarding;
  private long droppedBytes;

  /** Where the next byte is expected in the log. */
  public long nextOffset() {
    return next;
  }

  /**
   * Where the text not yet given as a line starts: the unended line's first byte, or {@link
   * #nextOffset} when none is held. A send with no text names this offset, so it never claims the
   * bytes of a line still to come.
   */
  public long unsentOffset() {
    return partial.size() > 0 ? partialStart : next;
  }

  /** Bytes let go so far: overlong lines, and lines broken by a gap. */
  public long droppedBytes() {
    return droppedBytes;
  }

  /**
   * Feeds bytes written at {@code offset} and returns the lines they completed, oldest first.
   *
   * @param offset the byte offset of {@code data[0]} in the log
   * @param data the bytes
   * @return the completed lines, each with its ending and offset
   */
  public List<Line> feed(long offset, byte[] data) {
    int from = 0;
    if (offset < next) {
      long seen = next - offset;
      if (seen >= data.length) {
        return List.of();
      }
      from = (int) seen;
    } else if (offset > next) {
      droppedBytes += (offset - next) + partial.size();
      partial.reset();
      // The line going lost its start: drop what follows until it ends.
      discarding = true;
    }
    next = offset + data.length;
    List<Line> lines = new ArrayList<>();
    int start = from;
    if (partial.size() == 0) {
      partialStart = offset + from;
    }
    for (int i = from; i < data.length; i++) {
      byte b = data[i];
      if (b == '\n' || b == '\r') {
        int len = i + 1 - start;
        if (discarding) {
          droppedBytes += len;
          discarding = false;
        } else {
          partial.write(data, start, len);
          lines.add(new Line(partialStart, partial.toByteArray()));
        }
        partial.reset();
        start = i + 1;
        partialStart = offset + start;
      }
    }
    int rest = data.length - start;
    if (discarding) {
      droppedBytes += rest;
    } else if (partial.size() + (long) rest > MAX_UNENDED) {
      droppedBytes += partial.size() + rest;
      partial.reset();
      discarding = true;
    } else {
      partial.write(data, start, rest);
    }
    return lines;
  }

  /**
   * The unended line at the run's end, which then goes too; empty if none. The cutter is not to be
   * fed after this.
   */
  public Line finish() {
    Line last = new Line(partialStart, discarding ? new byte[0] : partial.toByteArray());
    partial.reset();
    return last;
  }
}
