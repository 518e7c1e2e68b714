package dev.knotless.runner.exec;

import dev.knotless.runner.mask.Masker;
import dev.knotless.runner.mask.SecretMask;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;

/**
 * Copies a step's output into the run's log on a thread of its own: the bytes as the step wrote
 * them, in order, once, masked as a stream ({@link Masker}) so a secret split across two reads is
 * still caught. With no secret to mask the bytes go straight through. Thread-safe: {@link #finish}
 * is called from the executor's thread.
 */
final class OutputPump implements Runnable {

  /** How much one read may take: a pipe's worth and more, so a flood costs few writes. */
  static final int READ_BYTES = 1 << 16;

  private final InputStream in;
  private final RunLog log;
  private final SecretMask mask;
  private final Thread thread;
  private IOException failure;
  private boolean abandoned;

  private OutputPump(InputStream in, RunLog log, SecretMask mask, long pid) {
    this.in = in;
    this.log = log;
    this.mask = mask;
    this.thread = new Thread(this, "step-output-" + pid);
    // A process that escaped the step's group may hold the pipe open for good; never let that
    // thread keep the JVM up.
    thread.setDaemon(true);
  }

  static OutputPump start(InputStream output, long pid, RunLog log, SecretMask mask) {
    OutputPump pump = new OutputPump(output, log, mask, pid);
    pump.thread.start();
    return pump;
  }

  @Override
  public void run() {
    Masker masker = mask.isEmpty() ? null : new Masker(mask, Masker.Overflow.EMIT);
    byte[] buffer = new byte[READ_BYTES];
    try (in) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (masker == null) {
          write(buffer, n);
        } else {
          byte[] masked = masker.write(buffer, 0, n);
          write(masked, masked.length);
        }
      }
      if (masker != null) {
        byte[] rest = masker.finish();
        write(rest, rest.length);
      }
    } catch (IOException e) {
      failed(e);
    }
  }

  /** Appends and flushes, unless the executor has moved on without this pump. */
  private void write(byte[] bytes, int length) {
    // Holding the log's lock across the check and the write keeps an abandoned pump from writing
    // after the executor has moved on to the next step.
    synchronized (log) {
      synchronized (this) {
        if (abandoned || failure != null) {
          return;
        }
      }
      try {
        log.append(bytes, 0, length);
        log.flush();
      } catch (IOException e) {
        failed(e);
      }
    }
  }

  private synchronized void failed(IOException e) {
    if (failure == null) {
      failure = e;
    }
  }

  /**
   * Waits up to {@code grace} for the output to end (the step's group is dead by then, so it ends
   * unless a process that left the group holds the pipe). Returns false if it had to be abandoned.
   *
   * @throws IOException if the output could not be read or written to the log
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
