package dev.knotless.runner.exec;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.LoggerFactory;

/**
 * The run's log file: the steps' output exactly as they wrote it (masked before it gets here, by
 * each step's {@link OutputPump}), and the executor's own lines between.
 *
 * <p>A step's bytes go in untouched: no decoding, no line splitting, nothing added, with one
 * exception: when a step's output does not end with a newline, one is written before the executor's
 * next line, so that line starts on a line of its own.
 *
 * <p>A log is capped, so a step that prints without end neither fills the disk nor makes a blob the
 * PDS refuses (the reference PDS takes 5 MiB). Its first {@link #HEAD_BYTES} are written as they
 * come, ending at the last newline before that size; from there only the last {@link #TAIL_BYTES}
 * are kept, and written when the log closes, after a line that says how many bytes were cut. The
 * kept tail starts after its first line break, so it starts with a whole line. So the file is
 * always a prefix of what was printed, the cut line, and a suffix of it. While cut, nothing reaches
 * the file or the listener until the close.
 *
 * <p>Writes are buffered and flushed whenever a step's output pauses (the pump calls {@link #flush}
 * after each read) and after every line of the executor's own. Thread-safe: the step's output pump
 * and the executor's thread write in turn.
 */
final class RunLog implements Closeable {

  /** What a log keeps from its start. */
  static final long HEAD_BYTES = 3L << 20;

  /** What a log keeps from its end, once past {@link #HEAD_BYTES}. */
  static final int TAIL_BYTES = 1 << 20;

  private static final byte[] NEWLINE = {'\n'};

  private final OutputStream out;
  private final OutputFilter filter;
  private final RunListener listener;
  private long offset;
  private TailRing tail;

  /** Whether what was appended so far ends with a newline (or nothing was). */
  private boolean atLineStart = true;

  /** Whether the file so far ends with a newline (or is empty). */
  private boolean fileAtLineStart = true;

  /**
   * @param filter masks the executor's own lines; a step's output comes masked already
   * @param listener hears each piece as it is written ({@link RunListener#logWritten}), under this
   *     log's lock, so pieces arrive in file order
   */
  RunLog(Path file, OutputFilter filter, RunListener listener) throws IOException {
    this.out =
        new BufferedOutputStream(
            Files.newOutputStream(file, StandardOpenOption.CREATE_NEW), 1 << 16);
    this.filter = filter;
    this.listener = listener;
  }

  /** Appends a step's output, masked already, as it is. */
  synchronized void append(byte[] bytes, int from, int length) throws IOException {
    if (length == 0) {
      return;
    }
    if (tail == null && offset + length > HEAD_BYTES) {
      // The head ends at its last newline: the rest of this piece starts the tail.
      int room = (int) (HEAD_BYTES - offset);
      int headEnd = from;
      for (int i = from + room - 1; i >= from; i--) {
        if (bytes[i] == '\n') {
          headEnd = i + 1;
          break;
        }
      }
      if (headEnd == from && !atLineStart) {
        // The head so far ends inside a line (a reader's piece cut it there) and no newline fits
        // the room left: the head takes the rest of that line, at most 4 KiB past the cap, rather
        // than end on half a line. A longer line ends the head where it is.
        for (int i = from; i < from + Math.min(length, room + 4096); i++) {
          if (bytes[i] == '\n') {
            headEnd = i + 1;
            break;
          }
        }
      }
      writeThrough(bytes, from, headEnd - from);
      tail = new TailRing(TAIL_BYTES);
      length -= headEnd - from;
      from = headEnd;
    }
    if (tail != null) {
      if (length > 0) {
        tail.add(bytes, from, length);
        atLineStart = bytes[from + length - 1] == '\n';
      }
      return;
    }
    writeThrough(bytes, from, length);
  }

  private void writeThrough(byte[] bytes, int from, int length) throws IOException {
    if (length == 0) {
      return;
    }
    long start = offset;
    out.write(bytes, from, length);
    offset += length;
    atLineStart = bytes[from + length - 1] == '\n';
    fileAtLineStart = atLineStart;
    byte[] copy = new byte[length];
    System.arraycopy(bytes, from, copy, 0, length);
    tell(start, copy);
  }

  private void tell(long start, byte[] bytes) {
    try {
      listener.logWritten(start, bytes);
    } catch (RuntimeException e) {
      // As every listener call: a listener's fault never changes the run.
      LoggerFactory.getLogger(RunLog.class)
          .warn("run listener {} failed: {}", listener.getClass().getName(), e.toString(), e);
    }
  }

  /** Writes what is buffered to the file. */
  synchronized void flush() throws IOException {
    out.flush();
  }

  /**
   * Writes each line of {@code text} (split at line breaks), masked, each ended by a newline, and
   * flushes: these are the executor's own lines (headers, notes), few and wanted at once. A step's
   * unended last line is ended first.
   */
  synchronized void lines(String text) throws IOException {
    if (!atLineStart) {
      append(NEWLINE, 0, 1);
    }
    String whole = text.replaceFirst("(\r\n|\r|\n)$", "");
    StringBuilder masked = new StringBuilder(whole.length() + 16);
    for (String line : whole.split("\r\n|\r|\n", -1)) {
      masked.append(filter.mask(line)).append('\n');
    }
    byte[] bytes = masked.toString().getBytes(StandardCharsets.UTF_8);
    append(bytes, 0, bytes.length);
    out.flush();
  }

  /** How many bytes the file holds so far. */
  synchronized long offset() {
    return offset;
  }

  @Override
  public synchronized void close() throws IOException {
    if (tail != null) {
      writeTail();
    }
    out.close();
  }

  private void writeTail() throws IOException {
    TailRing kept = tail;
    tail = null;
    byte[] bytes = kept.kept();
    if (kept.total() == bytes.length) {
      // Nothing was let go: the log is whole after all.
      writeThrough(bytes, 0, bytes.length);
      out.flush();
      return;
    }
    // The first line is only the end of one: it goes with the cut.
    int nl = indexOf(bytes, (byte) '\n');
    int from = nl < 0 ? 0 : nl + 1;
    long cut = kept.total() - (bytes.length - from);
    if (!fileAtLineStart) {
      writeThrough(NEWLINE, 0, 1);
    }
    byte[] notice =
        ("... "
                + cut
                + " bytes of output cut here: a log keeps its first "
                + (HEAD_BYTES >> 20)
                + " MiB and its last "
                + (TAIL_BYTES >> 20)
                + " MiB ...\n")
            .getBytes(StandardCharsets.UTF_8);
    writeThrough(notice, 0, notice.length);
    writeThrough(bytes, from, bytes.length - from);
    out.flush();
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
