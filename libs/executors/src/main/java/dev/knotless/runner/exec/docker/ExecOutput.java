package dev.knotless.runner.exec.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A step's exec output as the stream the run's output pump reads: the daemon's frames of stdout and
 * stderr, merged a line at a time ({@link LineMerge}) so a line of one stream is never spliced into
 * the other. It ends when the daemon ends the stream; a stream lost before its end (the daemon
 * gone) reads as an {@link IOException} naming the cause. Thread-safe between one writer and one
 * reader.
 */
final class ExecOutput extends ResultCallback.Adapter<Frame> {

  private final LineMerge merge = new LineMerge(2);
  private final CountDownLatch ended = new CountDownLatch(1);

  @Override
  public void onNext(Frame frame) {
    // The client hands every frame of an exec the same buffer: the merge copies it at once.
    byte[] payload = frame.getPayload();
    if (payload != null && payload.length > 0) {
      merge.add(frame.getStreamType() == StreamType.STDERR ? 1 : 0, payload, 0, payload.length);
    }
  }

  @Override
  public void onError(Throwable error) {
    merge.end(error);
    ended.countDown();
  }

  @Override
  public void onComplete() {
    merge.end(null);
    ended.countDown();
  }

  /** Waits up to {@code limit} for the stream to end; true if it did. */
  boolean awaitEnd(Duration limit) throws InterruptedException {
    return ended.await(Math.max(0, limit.toNanos()), TimeUnit.NANOSECONDS);
  }

  /** Why the stream broke, or null if it ended as streams end. */
  Throwable lost() {
    return merge.lost();
  }

  /** The stream the pump reads. */
  InputStream stream() {
    return merge.stream();
  }
}
