package dev.knotless.storage.remote;

import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.storage.Threads;
import dev.knotless.storage.Trace;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of the helper served by {@link HelperDaemon}: three loopback connections from {@code
 * bin/git-remote-knotless}, because a shell can copy a stream with {@code cat} but cannot split
 * one.
 *
 * <p>Every connection opens with four fields, each UTF-8 ended by a NUL byte: {@code
 * knotless-helper/1}, the token, its role and the session's id (the caller's choice).
 *
 * <ul>
 *   <li>{@code err}: the run's stderr comes back on it; closed when the run ends.
 *   <li>{@code wait}: the exit status comes back on it as a decimal line, last of all. If the
 *       caller closes it first (git killed the helper), the run is stopped.
 *   <li>{@code run}: more fields follow: the working directory, the number of arguments, the
 *       arguments, then the environment as {@code NAME=value} fields, ended by an empty field. The
 *       daemon answers {@code ok} or {@code no <why>} on a line. After {@code ok}, what the caller
 *       sends is the run's stdin up to a NUL byte (its end: the caller cannot half-close a socket);
 *       what it reads is the run's stdout, until the daemon closes its side.
 * </ul>
 *
 * A connection with a wrong first field or token is closed unanswered. Thread-safe.
 */
final class HelperSession {
  private static final Logger LOG = LoggerFactory.getLogger(HelperSession.class);
  static final String MAGIC = "knotless-helper/1";
  private static final int MAX_FIELD = 1 << 20;
  private static final int SHORT_FIELD = 128;
  private static final int MAX_FIELDS = 10_000;
  private static final int HEADER_TIMEOUT_MILLIS = 10_000;

  private final String id;
  private final long createdNanos = System.nanoTime();
  private volatile boolean started;
  private final CompletableFuture<Socket> err = new CompletableFuture<>();
  private final CompletableFuture<Socket> waiting = new CompletableFuture<>();

  HelperSession(String id) {
    this.id = id;
  }

  /** Whether this session's run connection is overdue: its other connections are then closed. */
  boolean abandoned(long nowNanos) {
    return nowNanos - createdNanos > TimeUnit.MILLISECONDS.toNanos(2L * HEADER_TIMEOUT_MILLIS);
  }

  /** Whether its run has begun. */
  boolean started() {
    return started;
  }

  /** Closes whichever of the err and wait connections came. */
  void drop() {
    err.thenAccept(HelperSession::closeQuietly);
    waiting.thenAccept(HelperSession::closeQuietly);
  }

  /** Reads a connection's opening and gives it to its session. Closes it on any failure. */
  static void accept(HelperDaemon daemon, Socket s) {
    try {
      s.setTcpNoDelay(true);
      s.setSoTimeout(HEADER_TIMEOUT_MILLIS);
      InputStream in = new BufferedInputStream(s.getInputStream());
      // Until the token has matched, read no more than it takes to compare.
      if (!MAGIC.equals(field(in, SHORT_FIELD))
          || !sameToken(daemon.token(), field(in, SHORT_FIELD))) {
        s.close();
        return;
      }
      String role = field(in);
      HelperSession session = daemon.session(field(in));
      switch (role) {
        case "err" -> session.err.complete(s);
        case "wait" -> session.waiting.complete(s);
        case "run" -> session.run(daemon, s, in);
        default -> s.close();
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("connection dropped: {}", e.toString());
      closeQuietly(s);
    }
  }

  private static boolean sameToken(String expected, String given) {
    return MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.US_ASCII), given.getBytes(StandardCharsets.US_ASCII));
  }

  private void run(HelperDaemon daemon, Socket s, InputStream in) throws IOException {
    Path cwd = Path.of(field(in));
    int argc = Integer.parseInt(field(in));
    if (argc < 0 || argc > 64) {
      throw new IOException("bad argument count " + argc);
    }
    String[] args = new String[argc];
    for (int i = 0; i < argc; i++) {
      args[i] = field(in);
    }
    Map<String, String> env = environment(in, cwd);
    OutputStream toCaller = s.getOutputStream();
    Socket errSocket;
    Socket waitSocket;
    try {
      errSocket = err.get(HEADER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
      waitSocket = waiting.get(HEADER_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      daemon.forget(id);
      refuse(s, "the daemon is stopping");
      return;
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      daemon.forget(id);
      refuse(s, "the err and wait connections did not come");
      return;
    }
    if (!cwd.isAbsolute()) {
      daemon.forget(id);
      refuse(s, "the working directory is not absolute");
      return;
    }
    boolean loopback = ServiceAddresses.fromEnvironment(env).allowsLoopback();
    if (loopback != ServiceAddresses.process().allowsLoopback()) {
      // Which servers may be reached is this JVM's setting: a run that wants another runs itself.
      daemon.forget(id);
      refuse(s, "KNOTLESS_ALLOW_LOCAL_SERVICES differs from this daemon's");
      return;
    }
    started = true;
    s.setSoTimeout(0);
    toCaller.write("ok\n".getBytes(StandardCharsets.US_ASCII));
    toCaller.flush();
    daemon.began();
    int status = 1;
    try (PrintStream errOut =
        new PrintStream(errSocket.getOutputStream(), true, StandardCharsets.UTF_8)) {
      Thread runner = Thread.currentThread();
      watchCaller(waitSocket, s, runner);
      BufferedOutputStream stdout = new BufferedOutputStream(toCaller, 1 << 16);
      Trace.Sink trace =
          Trace.asked(env) ? new Trace.Sink(errOut, System.currentTimeMillis()) : null;
      status =
          Trace.during(
              trace,
              () ->
                  GitRemoteKnotless.run(
                      args, env, cwd, new UntilNul(in), stdout, errOut, daemon.repos()));
      stdout.flush();
      s.shutdownOutput();
    } catch (IOException e) {
      LOG.debug("session {}: the caller went away: {}", id, e.toString());
    } finally {
      Thread.interrupted();
      closeQuietly(errSocket);
      try {
        waitSocket.getOutputStream().write((status + "\n").getBytes(StandardCharsets.US_ASCII));
      } catch (IOException e) {
        LOG.debug("session {}: could not send the status: {}", id, e.toString());
      }
      closeQuietly(waitSocket);
      closeQuietly(s);
      daemon.ended(id);
    }
  }

  /**
   * Watches the wait connection: the caller never sends on it, so its end means the caller is gone,
   * and the run is stopped: its connection closed (so its reads and writes fail) and its thread
   * interrupted (so a git it waits on is ended).
   */
  private void watchCaller(Socket waitSocket, Socket run, Thread runner) {
    Thread t =
        Threads.daemon("knotless-helper-watch")
            .newThread(
                () -> {
                  try {
                    if (waitSocket.getInputStream().read() < 0) {
                      LOG.info("session {}: the caller went away; stopping the run", id);
                      closeQuietly(run);
                      runner.interrupt();
                    }
                  } catch (IOException e) {
                    // closed at the end of the run
                  }
                });
    t.start();
  }

  private void refuse(Socket s, String why) throws IOException {
    LOG.info("run refused: {}", why);
    drop();
    s.getOutputStream().write(("no " + why + "\n").getBytes(StandardCharsets.UTF_8));
    s.close();
  }

  /**
   * The caller's environment, its relative paths taken from {@code cwd} as a process started there
   * would take them.
   */
  private static Map<String, String> environment(InputStream in, Path cwd) throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    for (int n = 0; ; n++) {
      if (n > MAX_FIELDS) {
        throw new IOException("too many environment entries");
      }
      String entry = field(in);
      if (entry.isEmpty()) {
        return Map.copyOf(env);
      }
      int eq = entry.indexOf('=');
      if (eq > 0) {
        String name = entry.substring(0, eq);
        String value = entry.substring(eq + 1);
        boolean relative = !value.isEmpty() && !value.startsWith("/") && cwd.isAbsolute();
        env.put(name, isPath(name) && relative ? cwd.resolve(value).normalize().toString() : value);
      }
    }
  }

  private static boolean isPath(String name) {
    return name.equals("GIT_DIR")
        || name.equals("GIT_WORK_TREE")
        || name.equals("GIT_OBJECT_DIRECTORY")
        || name.equals("GIT_INDEX_FILE")
        || name.equals("HOME")
        || (name.startsWith("XDG_") && name.endsWith("_HOME"))
        || (name.startsWith("KNOTLESS_") && name.endsWith("_DIR"));
  }

  /** One NUL-ended UTF-8 field. */
  static String field(InputStream in) throws IOException {
    return field(in, MAX_FIELD);
  }

  private static String field(InputStream in, int max) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != 0) {
      if (c < 0) {
        throw new IOException("the connection ended inside its opening");
      }
      if (b.size() >= max) {
        throw new IOException("a field of the opening is over " + max + " bytes");
      }
      b.write(c);
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  /** A stream that ends at the first NUL byte (or where {@code in} ends). */
  static final class UntilNul extends InputStream {
    private final InputStream in;
    private boolean ended;

    UntilNul(InputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      if (ended) {
        return -1;
      }
      int c = in.read();
      if (c <= 0) {
        ended = true;
        return -1;
      }
      return c;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (ended) {
        return -1;
      }
      if (len == 0) {
        return 0;
      }
      // One byte at a time would be slow; a NUL can only be the last byte the caller sends, so
      // read what is there and cut at the NUL.
      int n = in.read(b, off, len);
      if (n < 0) {
        ended = true;
        return -1;
      }
      for (int i = off; i < off + n; i++) {
        if (b[i] == 0) {
          ended = true;
          return i == off ? -1 : i - off;
        }
      }
      return n;
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // nothing left to do
    }
  }
}
