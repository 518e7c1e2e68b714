package dev.knotless.runner.e2e;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the in-process runner logs, kept for a test to read: the runner logs through slf4j-simple,
 * which writes to whatever {@link System#err} is at the time, so while this is open {@code
 * System.err} also writes here. Closing it puts the old stream back.
 */
final class CapturedLog implements AutoCloseable {
  private final PrintStream before = System.err;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

  CapturedLog() {
    System.setErr(new PrintStream(tee(before, kept), true, StandardCharsets.UTF_8));
  }

  /** Everything logged since it was opened. */
  String text() {
    synchronized (kept) {
      return kept.toString(StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    System.setErr(before);
  }

  private static OutputStream tee(OutputStream a, OutputStream b) {
    return new OutputStream() {
      @Override
      public void write(int c) throws java.io.IOException {
        a.write(c);
        synchronized (b) {
          b.write(c);
        }
      }

      @Override
      public void write(byte[] buf, int off, int len) throws java.io.IOException {
        a.write(buf, off, len);
        synchronized (b) {
          b.write(buf, off, len);
        }
      }
    };
  }
}
