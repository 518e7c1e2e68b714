package dev.knotless.runner.exec;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The run's log file. Every line goes through the run's {@link OutputFilter} before it is written,
 * and is written at once (unbuffered), so a follower reading the file sees it. Thread-safe: the
 * step's output pump and the executor's thread write in turn.
 */
final class RunLog implements Closeable {

  /** A line as written: the masked text and where it lies in the file. */
  record Written(String text, long start, long end) {}

  private final OutputStream out;
  private final OutputFilter filter;
  private long offset;

  RunLog(Path file, OutputFilter filter) throws IOException {
    this.out = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW);
    this.filter = filter;
  }

  /** Masks {@code text} (one line, no break) and writes it followed by {@code lineBreak}. */
  synchronized Written write(String text, String lineBreak) throws IOException {
    String masked = filter.mask(text);
    byte[] bytes = (masked + lineBreak).getBytes(StandardCharsets.UTF_8);
    long start = offset;
    out.write(bytes);
    offset += bytes.length;
    return new Written(masked, start, offset);
  }

  /** Writes each line of {@code text} (split at line breaks), masked, each ended by a newline. */
  synchronized void lines(String text) throws IOException {
    String whole = text.replaceFirst("(\r\n|\r|\n)$", "");
    for (String line : whole.split("\r\n|\r|\n", -1)) {
      write(line, "\n");
    }
  }

  synchronized long offset() {
    return offset;
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
