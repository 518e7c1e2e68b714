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
 * The run's log file. Every line goes through the run's {@link OutputFilter} before it is written.
 *
 * <p>A log is capped, so a step that prints without end neither fills the disk nor makes a blob the
 * PDS refuses (the reference PDS takes 5 MiB): its first {@link #HEAD_BYTES} are written as they
 * come, then only the last {@link #TAIL_BYTES} are kept, raw, and written when the log closes,
 * after a line that says how much was cut. The tail's first, partial line goes with the cut, so
 * every line written is whole and masked whole. While cut, nothing reaches the file or the listener
 * until the close. Lines are buffered and flushed whenever the step's output pauses (the pump calls
 * {@link #flush} after each read) and after every line of the executor's own, so a follower reading
 * the file is at most one pipe read behind, while a step printing fast costs one write per read,
 * not per line. Thread-safe: the step's output pump and the executor's thread write in turn.
 */
final class RunLog implements Closeable {

  /** A line as written: the masked text and where it lies in the file. */
  record Written(String text, long start, long end) {}

  /** What a log keeps from its start. */
  static final long HEAD_BYTES = 3L << 20;

  /** What a log keeps from its end, once past {@link #HEAD_BYTES}. */
  static final int TAIL_BYTES = 1 << 20;

  private final OutputStream out;
  private final OutputFilter filter;
  private final RunListener listener;
  private long offset;
  private TailRing tail;

  /**
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

  /**
   * Masks {@code text} (one line, no break) and writes it followed by {@code lineBreak}; returns
   * null when the log is past its head and the line was kept for the tail instead.
   */
  synchronized Written write(String text, String lineBreak) throws IOException {
    if (tail == null
        && offset + (long) text.length() * 3 + lineBreak.length() > HEAD_BYTES
        && offset + (text + lineBreak).getBytes(StandardCharsets.UTF_8).length > HEAD_BYTES) {
      tail = new TailRing(TAIL_BYTES);
    }
    if (tail != null) {
      byte[] raw = (text + lineBreak).getBytes(StandardCharsets.UTF_8);
      tail.add(raw, 0, raw.length);
      return null;
    }
    return writeMasked(text, lineBreak);
  }

  /** Whether the log is past its head: output is then kept raw, for the tail. */
  synchronized boolean cut() {
    return tail != null;
  }

  /** Keeps raw output for the tail, unsplit and unmasked; call only once {@link #cut}. */
  synchronized void spill(byte[] bytes, int from, int length) {
    tail.add(bytes, from, length);
  }

  private Written writeMasked(String text, String lineBreak) throws IOException {
    String masked = filter.mask(text);
    byte[] bytes = (masked + lineBreak).getBytes(StandardCharsets.UTF_8);
    long start = offset;
    out.write(bytes);
    offset += bytes.length;
    try {
      listener.logWritten(start, bytes);
    } catch (RuntimeException e) {
      // As every listener call: a listener's fault never changes the run.
      LoggerFactory.getLogger(RunLog.class)
          .warn("run listener {} failed: {}", listener.getClass().getName(), e.toString(), e);
    }
    return new Written(masked, start, offset);
  }

  /** Writes what is buffered to the file. */
  synchronized void flush() throws IOException {
    out.flush();
  }

  /**
   * Writes each line of {@code text} (split at line breaks), masked, each ended by a newline, and
   * flushes: these are the executor's own lines (headers, notes), few and wanted at once.
   */
  synchronized void lines(String text) throws IOException {
    String whole = text.replaceFirst("(\r\n|\r|\n)$", "");
    for (String line : whole.split("\r\n|\r|\n", -1)) {
      write(line, "\n");
    }
    out.flush();
  }

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
    int from = 0;
    if (kept.total() > bytes.length) {
      // The first line is only the end of one: it goes with the cut, secrets and all.
      while (from < bytes.length && bytes[from] != '\n' && bytes[from] != '\r') {
        from++;
      }
      while (from < bytes.length && (bytes[from] == '\n' || bytes[from] == '\r')) {
        from++;
      }
    }
    long cut = kept.total() - (bytes.length - from);
    writeMasked(
        "... "
            + cut
            + " bytes of output cut here: a log keeps its first "
            + (HEAD_BYTES >> 20)
            + " MiB and its last "
            + (TAIL_BYTES >> 20)
            + " MiB ...",
        "\n");
    LineSplitter lines =
        new LineSplitter(
            (text, lineBreak) -> {
              try {
                writeMasked(text, lineBreak);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    try {
      lines.feed(bytes, from, bytes.length - from);
      lines.finish();
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
    out.flush();
  }
}
