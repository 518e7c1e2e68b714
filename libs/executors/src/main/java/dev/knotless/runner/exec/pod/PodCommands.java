package dev.knotless.runner.exec.pod;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Short execs whose whole stdout is wanted, for the pod host, each within a time limit: an API
 * server that stops answering mid-exec ends the call with an error rather than holding the run.
 * Thread-safe.
 */
final class PodCommands {

  /** How long a short command may take to report its exit status once its output ended. */
  static final Duration STATUS_WAIT = Duration.ofSeconds(30);

  /** The limit of reading an exit record or killing a step. */
  static final Duration SHORT = Duration.ofMinutes(1);

  /** The limit of copying the checkout in or the outputs out. */
  static final Duration COPY = Duration.ofMinutes(10);

  /** How much a command may write past what its reader takes (a tar's end padding is 10 KiB). */
  static final long TRAILING_MAX = 1024 * 1024;

  private static final ScheduledExecutorService WATCHDOG =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "pod-exec-watchdog");
            t.setDaemon(true);
            return t;
          });

  private PodCommands() {}

  /**
   * Runs {@code command} in pod {@code name} with {@code stdin} written first (null for none), and
   * returns its stdout (at most {@code max} bytes, the rest read and dropped) and exit status.
   *
   * @throws IOException when the exec fails, or has not ended within {@code limit} (its connection
   *     is then closed)
   */
  static Result run(
      PodApi api, String name, List<String> command, InputStream stdin, long max, Duration limit)
      throws IOException, InterruptedException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int exit =
        stream(
            api,
            name,
            command,
            stdin,
            limit,
            o -> {
              byte[] buf = new byte[64 * 1024];
              for (int n; (n = o.read(buf)) >= 0; ) {
                int keep = (int) Math.max(0, Math.min(n, max - out.size()));
                out.write(buf, 0, keep);
              }
            });
    return new Result(exit, out.toByteArray());
  }

  /** Closes {@code exec} once {@code limit} passed, unless the result is cancelled first. */
  static ScheduledFuture<?> closeAfter(PodApi.Exec exec, Duration limit) {
    return WATCHDOG.schedule(exec::close, limit.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** What reads a command's stdout to its end. */
  @FunctionalInterface
  interface Reader {
    void read(InputStream stdout) throws IOException;
  }

  /**
   * Runs {@code command} in pod {@code name} as {@link #run} does, handing its stdout to {@code
   * reader}, and returns its exit status.
   */
  static int stream(
      PodApi api,
      String name,
      List<String> command,
      InputStream stdin,
      Duration limit,
      Reader reader)
      throws IOException, InterruptedException {
    try (PodApi.Exec exec = api.exec(name, command)) {
      AtomicBoolean late = new AtomicBoolean();
      ScheduledFuture<?> watchdog =
          WATCHDOG.schedule(
              () -> {
                late.set(true);
                exec.close();
              },
              limit.toMillis(),
              TimeUnit.MILLISECONDS);
      try {
        if (stdin != null) {
          OutputStream in = exec.stdin();
          stdin.transferTo(in);
          in.flush();
        }
        InputStream stdout = exec.stdout();
        reader.read(stdout);
        drain(stdout, command);
        int exit = exec.exitCode(STATUS_WAIT);
        if (late.get()) {
          throw new IOException(timedOut(command, limit));
        }
        return exit;
      } catch (IOException e) {
        if (late.get()) {
          throw new IOException(timedOut(command, limit), e);
        }
        throw e;
      } finally {
        watchdog.cancel(false);
      }
    }
  }

  /**
   * Reads what is left of a stdout its reader stopped short of, such as the zero blocks that pad a
   * tar archive past its end marker. The exit status comes after the output on the same socket, and
   * a client that stops reading may never see it.
   *
   * @throws IOException when more than {@link #TRAILING_MAX} bytes are left
   */
  private static void drain(InputStream stdout, List<String> command) throws IOException {
    byte[] buf = new byte[8192];
    long left = 0;
    for (int n; (n = stdout.read(buf)) >= 0; ) {
      left += n;
      if (left > TRAILING_MAX) {
        throw new IOException(
            what(command)
                + " wrote more than "
                + TRAILING_MAX
                + " bytes past the end of its output");
      }
    }
  }

  private static String timedOut(List<String> command, Duration limit) {
    return what(command) + " did not end within " + limit.toSeconds() + "s";
  }

  private static String what(List<String> command) {
    return command.size() > 3 ? command.get(3) : "the exec";
  }

  /** A short command's exit status and stdout. */
  record Result(int exit, byte[] out) {
    String text() {
      return new String(out, StandardCharsets.UTF_8);
    }
  }
}
