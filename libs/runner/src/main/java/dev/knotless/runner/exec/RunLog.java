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
 * Lines are buffered and flushed whenever the step's output pauses (the pump calls {@link #flush}
 * after each read) and after every line of the executor's own, so a follower reading the file is at
 * most one pipe read behind, while a step printing fast costs one write per read, not per line.
 * Thread-safe: the step's output pump and the executor's thread write in turn.
 */
final class RunLog implements Closeable {

  /** A line as written: the masked text and where it lies in the file. */
  record Written(String text, long start, long end) {}

  private final OutputStream out;
  private final OutputFilter filter;
  private final RunListener listener;
  private long offset;

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

  /** Masks {@code text} (one line, no break) and writes it followed by {@code lineBreak}. */
  synchronized Written write(String text, String lineBreak) throws IOException {
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
    out.close();
  }
}
