package dev.knotless.storage.remote;

import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.Threads;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resident helper: one JVM that serves many runs of {@code git-remote-knotless}, so that a
 * clone or push does not pay for a JVM's start, class loading and a cold JIT every time (about 200
 * ms of a 550 ms clone on two cores). {@code bin/git-remote-knotless} starts it in the background
 * the first time, runs that operation itself, and hands later ones to it over loopback TCP.
 *
 * <p>Who may use it: whoever can read its address file, which holds the port and a random token and
 * is written mode 0600 in a directory of this user's that only this user can enter. A connection
 * that does not open with the token is closed unread. It listens on 127.0.0.1 only.
 *
 * <p>Each run brings its arguments, working directory and whole environment (credentials among
 * them) and gets a fresh {@link KnotlessRepos} made from that environment: nothing one run reads or
 * logs in with is kept for the next. See {@link HelperSession} for the wire format.
 *
 * <p>It ends after {@code KNOTLESS_HELPER_IDLE} seconds (900 by default) with no run, or as soon as
 * it is idle and its address file names another daemon (a newer build started one) or is gone.
 * Thread-safe.
 */
public final class HelperDaemon {
  private static final Logger LOG = LoggerFactory.getLogger(HelperDaemon.class);
  static final Duration DEFAULT_IDLE = Duration.ofMinutes(15);
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> PRIVATE_DIR =
      PosixFilePermissions.fromString("rwx------");

  private final Path addressFile;
  private final Duration idle;
  private final Function<Map<String, String>, KnotlessRepos> repos;
  private final String token;
  private final Map<String, HelperSession> sessions = new ConcurrentHashMap<>();
  private final AtomicInteger running = new AtomicInteger();
  private final ExecutorService connections =
      Executors.newCachedThreadPool(Threads.daemon("knotless-helper-connection"));
  private volatile long lastUsedNanos = System.nanoTime();
  private ServerSocket server;

  HelperDaemon(
      Path addressFile, Duration idle, Function<Map<String, String>, KnotlessRepos> repos) {
    this.addressFile = addressFile;
    this.idle = idle;
    this.repos = repos;
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    this.token = HexFormat.of().formatHex(secret);
  }

  /** {@code HelperDaemon <address file>}: serves until idle, then exits 0. */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: HelperDaemon <address file>");
      System.exit(2);
    }
    Duration idle = idleFrom(System.getenv("KNOTLESS_HELPER_IDLE"));
    HelperDaemon daemon =
        new HelperDaemon(Path.of(args[0]).toAbsolutePath(), idle, KnotlessRepos::fromEnvironment);
    daemon.start();
    // The HTTP client's set-up (its selector thread and the rest), once, before the first run.
    dev.knotless.atproto.ServiceAddresses.process().client();
    daemon.serve();
    System.exit(0);
  }

  static Duration idleFrom(String seconds) {
    if (seconds == null || seconds.isBlank()) {
      return DEFAULT_IDLE;
    }
    try {
      long s = Long.parseLong(seconds.strip());
      if (s > 0) {
        return Duration.ofSeconds(s);
      }
    } catch (NumberFormatException e) {
      // falls through to the message
    }
    throw new IllegalArgumentException(
        "KNOTLESS_HELPER_IDLE must be a whole number of seconds above 0, not " + seconds);
  }

  /** Binds 127.0.0.1 and publishes the address file. */
  void start() throws IOException {
    Path dir = addressFile.getParent();
    checkPrivate(dir);
    server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
    Path tmp = dir.resolve(addressFile.getFileName() + "." + ProcessHandle.current().pid());
    Files.deleteIfExists(tmp);
    Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    Files.writeString(
        tmp,
        server.getLocalPort() + " " + token + " " + ProcessHandle.current().pid() + "\n",
        StandardCharsets.US_ASCII);
    try {
      Files.move(tmp, addressFile, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, addressFile, StandardCopyOption.REPLACE_EXISTING);
    }
    // The launcher that started this one made this lock so that others would not start another.
    Files.deleteIfExists(dir.resolve(addressFile.getFileName() + ".starting"));
    LOG.info(
        "serving on 127.0.0.1:{}, address in {}, idle limit {}",
        server.getLocalPort(),
        addressFile,
        idle);
  }

  /**
   * The directory must be this user's and closed to everyone else: the token in it is all that
   * keeps another user out.
   */
  private static void checkPrivate(Path dir) throws IOException {
    Files.createDirectories(dir);
    String me = System.getProperty("user.name");
    String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
    if (!owner.equals(me) || !PRIVATE_DIR.containsAll(perms)) {
      throw new IOException(
          dir
              + " must belong to "
              + me
              + " and be closed to others (mode 0700); it is "
              + owner
              + "'s with "
              + PosixFilePermissions.toString(perms));
    }
  }

  /** Accepts connections until idle. */
  void serve() throws IOException {
    int checkMillis = (int) Math.min(10_000, Math.max(200, idle.toMillis() / 4));
    server.setSoTimeout(checkMillis);
    try {
      while (!finished()) {
        Socket s;
        try {
          s = server.accept();
        } catch (java.net.SocketTimeoutException e) {
          continue;
        }
        lastUsedNanos = System.nanoTime();
        connections.execute(() -> HelperSession.accept(this, s));
      }
    } finally {
      server.close();
      if (ownsAddressFile()) {
        Files.deleteIfExists(addressFile);
      }
      LOG.info("idle: ending");
    }
  }

  private boolean finished() {
    long now = System.nanoTime();
    sessions
        .values()
        .removeIf(
            session -> {
              boolean gone = !session.started() && session.abandoned(now);
              if (gone) {
                session.drop();
              }
              return gone;
            });
    if (running.get() > 0) {
      return false;
    }
    return now - lastUsedNanos > idle.toNanos() || !ownsAddressFile();
  }

  private boolean ownsAddressFile() {
    try {
      String[] fields = Files.readString(addressFile, StandardCharsets.US_ASCII).strip().split(" ");
      return fields.length >= 2 && fields[1].equals(token);
    } catch (IOException e) {
      return false;
    }
  }

  String token() {
    return token;
  }

  Function<Map<String, String>, KnotlessRepos> repos() {
    return repos;
  }

  /** The session {@code id}, made by whichever of its connections arrives first. */
  HelperSession session(String id) {
    return sessions.computeIfAbsent(id, HelperSession::new);
  }

  void began() {
    running.incrementAndGet();
    lastUsedNanos = System.nanoTime();
  }

  void ended(String id) {
    sessions.remove(id);
    lastUsedNanos = System.nanoTime();
    running.decrementAndGet();
  }

  /** Drops a session that never ran (its run connection did not come). */
  void forget(String id) {
    sessions.remove(id);
  }
}
