package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A step's exec output as the stream the run's output pump reads: the daemon's frames (stdout and
 * stderr, in the order it sent them) queued by the client's thread and read by the pump's. It ends
 * when the daemon ends the stream; a stream lost before its end (the daemon gone) reads as an
 * {@link IOException} naming the cause. Thread-safe between one writer and one reader.
 */
final class ExecOutput extends ResultCallback.Adapter<Frame> {

  private static final byte[] END = new byte[0];

  private final LinkedBlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
  private final CountDownLatch ended = new CountDownLatch(1);
  private volatile Throwable lost;

  @Override
  public void onNext(Frame frame) {
    byte[] payload = frame.getPayload();
    if (payload != null && payload.length > 0) {
      frames.add(payload);
    }
  }

  @Override
  public void onError(Throwable error) {
    lost = error;
    finish();
  }

  @Override
  public void onComplete() {
    finish();
  }

  private void finish() {
    if (ended.getCount() > 0) {
      frames.add(END);
      ended.countDown();
    }
  }

  /** Waits up to {@code limit} for the stream to end; true if it did. */
  boolean awaitEnd(Duration limit) throws InterruptedException {
    return ended.await(Math.max(0, limit.toNanos()), TimeUnit.NANOSECONDS);
  }

  /** Why the stream broke, or null if it ended as streams end. */
  Throwable lost() {
    return lost;
  }

  /** The stream the pump reads. */
  InputStream stream() {
    return new InputStream() {
      private byte[] current = new byte[0];
      private int at;
      private boolean done;

      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
          return 0;
        }
        while (!done && at >= current.length) {
          try {
            current = frames.take();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the step's output", e);
          }
          at = 0;
          if (current == END) {
            done = true;
          }
        }
        if (done) {
          Throwable why = lost;
          if (why != null) {
            throw new IOException("the step's output was cut off: " + why, why);
          }
          return -1;
        }
        int n = Math.min(len, current.length - at);
        System.arraycopy(current, at, b, off, n);
        at += n;
        return n;
      }
    };
  }
}
