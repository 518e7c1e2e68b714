package dev.knotless.runner.exec;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * A {@link RunListener} that hands on each whole line of the log as it is written, masked, decoded
 * as UTF-8 and without its line end: for a caller waiting for a step to print something. A line
 * ends at {@code \n} or {@code \r}; one unended past a megabyte is handed on at that length. Called
 * on the executor's threads one at a time, as every listener is.
 */
final class LogLines implements RunListener {

  private static final int MAX_LINE = 1 << 20;

  private final Consumer<String> onLine;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();

  LogLines(Consumer<String> onLine) {
    this.onLine = onLine;
  }

  @Override
  public synchronized void logWritten(long offset, byte[] bytes) {
    for (byte b : bytes) {
      if (b == '\n' || b == '\r') {
        emit();
      } else {
        line.write(b);
        if (line.size() >= MAX_LINE) {
          emit();
        }
      }
    }
  }

  private void emit() {
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    onLine.accept(text);
  }
}
