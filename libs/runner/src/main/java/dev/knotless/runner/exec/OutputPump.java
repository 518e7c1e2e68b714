package dev.knotless.runner.exec;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Copies a step's output into the log line by line, masked, on a thread of its own, telling the
 * listener of each line. Thread-safe: {@link #finish} is called from the executor's thread.
 */
final class OutputPump implements Runnable {

  private final InputStream in;
  private final int index;
  private final RunLog log;
  private final Consumer<RunListener.OutputLine> onLine;
  private final Thread thread;
  private IOException failure;
  private boolean abandoned;

  private OutputPump(
      InputStream in, int index, RunLog log, Consumer<RunListener.OutputLine> onLine, long pid) {
    this.in = in;
    this.index = index;
    this.log = log;
    this.onLine = onLine;
    this.thread = new Thread(this, "step-output-" + pid);
    // A process that escaped the step's group may hold the pipe open for good; never let that
    // thread keep the JVM up.
    thread.setDaemon(true);
  }

  static OutputPump start(
      InputStream output,
      long pid,
      int index,
      RunLog log,
      Consumer<RunListener.OutputLine> onLine) {
    OutputPump pump = new OutputPump(output, index, log, onLine, pid);
    pump.thread.start();
    return pump;
  }

  @Override
  public void run() {
    LineSplitter lines = new LineSplitter(this::write);
    byte[] buffer = new byte[8192];
    try (in) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (spilled(lines, buffer, n)) {
          continue;
        }
        lines.feed(buffer, 0, n);
        flush();
      }
      lines.finish();
      flush();
    } catch (IOException e) {
      synchronized (this) {
        if (failure == null) {
          failure = e;
        }
      }
    }
  }

  /**
   * Past the log's head, hands it the bytes raw for its tail, with no line split or masked now
   * (what the splitter held back goes first); returns false while the log is not cut.
   */
  private boolean spilled(LineSplitter lines, byte[] buffer, int n) {
    synchronized (log) {
      if (!log.cut()) {
        return false;
      }
      synchronized (this) {
        if (abandoned) {
          return true;
        }
      }
      byte[] held = lines.drain();
      if (held.length > 0) {
        log.spill(held, 0, held.length);
      }
      log.spill(buffer, 0, n);
      return true;
    }
  }

  private void write(String text, String lineBreak) {
    // Holding the log's lock across the check and the write keeps an abandoned pump from writing
    // after the executor has moved on to the next step.
    synchronized (log) {
      synchronized (this) {
        if (abandoned || failure != null) {
          return;
        }
      }
      try {
        RunLog.Written w = log.write(text, lineBreak);
        if (w != null) {
          onLine.accept(new RunListener.OutputLine(index, w.text(), w.start(), w.end()));
        }
      } catch (IOException e) {
        synchronized (this) {
          failure = e;
        }
      }
    }
  }

  private void flush() {
    synchronized (log) {
      try {
        log.flush();
      } catch (IOException e) {
        synchronized (this) {
          if (failure == null) {
            failure = e;
          }
        }
      }
    }
  }

  /**
   * Waits up to {@code grace} for the output to end (the step's group is dead by then, so it ends
   * unless a process that left the group holds the pipe). Returns false if it had to be abandoned.
   *
   * @throws IOException if a line could not be written to the log
   */
  boolean finish(Duration grace) throws IOException, InterruptedException {
    thread.join(Math.max(1, grace.toMillis()));
    boolean ended = !thread.isAlive();
    synchronized (log) {
      synchronized (this) {
        abandoned = !ended;
        if (failure != null) {
          throw failure;
        }
      }
    }
    return ended;
  }
}
