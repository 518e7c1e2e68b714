package dev.knotless.runner.exec.pod;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One step's output as the run's output pump reads it, and its exit status once recorded. The
 * output is read from the step's {@code out} file in the pod, first by the exec that launched the
 * step, which goes on as a follower from byte 0, then, should it end early, by follower execs
 * ({@link Launcher#followCommand}) that start at the byte offset read so far: a follower whose
 * connection drops is started again at that offset, so no byte is lost or read twice. When a
 * follower ends, the exit record decides: none yet means the connection dropped, so follow again;
 * one there means the step ended, so the status comes from the record, never from how the
 * connection ended. A follower that exited 0 printed the output to its end after it saw the record
 * (so a quick step's output comes with the first follower) and read that record as {@code 0}, so it
 * is not read again; one that exited {@link Launcher#FOLLOWED_NOT_ZERO} printed it all too, and the
 * record is read; any other end has the rest read by {@link Launcher#tailCommand}. The status is
 * known only once the output was read to its end, as the run's output pump always does, so a step
 * never counts as ended with output still unread. Read by one thread; {@link #exit} from any.
 */
final class StepOutput extends InputStream {

  /** Followers that fail to start in a row before the pod counts as lost. */
  static final int MAX_FAILED_STARTS = 5;

  /** The wait before a follower is started again after a failed start. */
  static final Duration RETRY = Duration.ofMillis(200);

  /**
   * How long an ended follower's exit status is waited for; none by then reads the rest as a
   * dropped connection's, which is right either way.
   */
  static final Duration FOLLOWER_STATUS_WAIT = Duration.ofSeconds(5);

  private final PodApi api;
  private final String pod;
  private final int index;
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();
  private PodApi.Exec first;
  private long offset;
  private volatile PodApi.Exec follower;
  private InputStream current;
  private int failedStarts;
  private boolean readSinceOpen;
  private boolean tailing;
  private int status;
  private volatile boolean done;
  private volatile String lost;

  StepOutput(PodApi api, String pod, int index) {
    this(api, pod, index, null);
  }

  /**
   * As above, with {@code first} the exec that launched the step ({@link Launcher#launchCommand}),
   * which goes on as its first follower from byte 0: the output is followed as soon as the step
   * writes it, with no exec more.
   */
  StepOutput(PodApi api, String pod, int index, PodApi.Exec first) {
    this.api = api;
    this.pod = pod;
    this.index = index;
    this.first = first;
  }

  /** How many bytes of the step's output were read. */
  long offset() {
    return offset;
  }

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
    try {
      while (true) {
        if (lost != null) {
          throw new IOException(lost);
        }
        if (current == null) {
          if (done) {
            return -1;
          }
          open();
          continue;
        }
        int n;
        boolean dropped = false;
        try {
          n = current.read(b, off, len);
        } catch (IOException e) {
          n = -1;
          dropped = true;
        }
        if (n > 0) {
          offset += n;
          readSinceOpen = true;
          failedStarts = 0;
          return n;
        }
        boolean tailed = tailing && follower.exitCode(PodCommands.STATUS_WAIT) == 0;
        int followed = tailing || dropped ? -1 : followerExit();
        boolean followedToEnd = followed == 0 || followed == Launcher.FOLLOWED_NOT_ZERO;
        boolean empty = !readSinceOpen;
        closeFollower();
        if (tailed) {
          done = true;
          exit.complete(status);
          return -1;
        }
        if (!tailing) {
          OptionalInt recorded;
          try {
            // A follower that exited 0 printed everything and read a record of 0: no exec more.
            recorded = followed == 0 ? OptionalInt.of(0) : recordedExit();
          } catch (IOException e) {
            failed(e);
            continue;
          }
          if (recorded.isPresent() && followedToEnd) {
            // The follower printed everything written before the record: nothing is left.
            status = recorded.getAsInt();
            done = true;
            exit.complete(status);
            return -1;
          } else if (recorded.isPresent()) {
            // Whatever the follower had not printed when the record appeared comes last.
            status = recorded.getAsInt();
            tailing = true;
          } else if (empty) {
            failed(new IOException("its output follower ended at once"));
          }
        }
      }
    } catch (IOException e) {
      exit.completeExceptionally(e);
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      IOException io = new IOException("interrupted while reading the step's output", e);
      exit.completeExceptionally(io);
      throw io;
    }
  }

  /**
   * Ends the reading at once with {@code why}: the API server said the pod is lost, and a follower
   * whose node stopped answering may neither end nor fail. Any thread; a step already read to its
   * end is not changed.
   */
  void lose(String why) {
    if (done) {
      return;
    }
    lost = why;
    PodApi.Exec f = follower;
    if (f != null) {
      f.close();
    }
  }

  private void open() throws IOException, InterruptedException {
    try {
      PodApi.Exec opened = takeFirst();
      follower =
          opened != null
              ? opened
              : api.exec(
                  pod,
                  tailing
                      ? Launcher.tailCommand(index, offset)
                      : Launcher.followCommand(index, offset));
      current = follower.stdout();
      readSinceOpen = false;
    } catch (IOException e) {
      failed(e);
    }
  }

  /** The exec that launched the step, once, as the first follower; null when it is no use now. */
  private PodApi.Exec takeFirst() {
    PodApi.Exec e = first;
    first = null;
    if (e != null && (tailing || offset != 0)) {
      e.close();
      return null;
    }
    return e;
  }

  private void failed(IOException e) throws IOException, InterruptedException {
    if (++failedStarts >= MAX_FAILED_STARTS) {
      throw new IOException(
          "lost pod " + pod + ": the step's output could not be read: " + e.getMessage(), e);
    }
    Thread.sleep(RETRY.toMillis());
  }

  /**
   * The exit status of the follower that just ended, or -1 when none came (a connection that
   * dropped): 0 or {@link Launcher#FOLLOWED_NOT_ZERO} when it printed the step's output to its end
   * after the exit record appeared, 0 only when that record is {@code 0}.
   */
  private int followerExit() throws InterruptedException {
    try {
      return follower.exitCode(FOLLOWER_STATUS_WAIT);
    } catch (IOException noStatus) {
      return -1;
    }
  }

  private OptionalInt recordedExit() throws IOException, InterruptedException {
    return Launcher.parseExit(
        PodCommands.run(api, pod, Launcher.exitCommand(index), null, 64, PodCommands.SHORT).text());
  }

  private void closeFollower() {
    if (follower != null) {
      follower.close();
      follower = null;
    }
    current = null;
  }

  /**
   * Waits up to {@code limit} for the step's exit record to be read; its status, or empty.
   *
   * @throws IOException when the output could no longer be read (the pod lost)
   */
  OptionalInt exit(Duration limit) throws IOException, InterruptedException {
    try {
      return OptionalInt.of(exit.get(Math.max(0, limit.toNanos()), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      return OptionalInt.empty();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }

  @Override
  public void close() {
    closeFollower();
    PodApi.Exec e = first;
    first = null;
    if (e != null) {
      e.close();
    }
  }
}
