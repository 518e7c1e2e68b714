package dev.knotless.storage.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.storage.KnotlessRepos;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The resident helper's wire, on loopback, with the helper's first command and nothing remote. */
class HelperDaemonTest {
  @TempDir Path tmp;
  private final List<Socket> sockets = new ArrayList<>();
  private CompletableFuture<Void> serving;

  @AfterEach
  void close() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
  }

  @Test
  void aRunReadsStdinUpToTheEndMarkAndSendsBackStdoutStderrAndItsStatus() throws Exception {
    Path address = startDaemon(Duration.ofMinutes(1));
    Caller c = new Caller(address, "s1");
    c.run(List.of("origin", "knotless://alice.test/x"), "capabilities\n".getBytes());
    assertEquals("ok", c.ack());
    c.stdin("\n".getBytes());
    c.endStdin();
    assertEquals("option\nfetch\npush\n\n", c.stdout());
    assertEquals("", c.stderr());
    assertEquals("0", c.status());

    Caller usage = new Caller(address, "s2");
    usage.run(List.of(), new byte[0]);
    assertEquals("ok", usage.ack());
    usage.endStdin();
    assertEquals("", usage.stdout());
    assertTrue(usage.stderr().startsWith("usage: git-remote-knotless"), usage.stderr());
    assertEquals("2", usage.status());
  }

  @Test
  void aConnectionWithoutTheTokenIsClosedUnanswered() throws Exception {
    Path address = startDaemon(Duration.ofMinutes(1));
    String[] fields = Files.readString(address).strip().split(" ");
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(fields[0]))) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(fields("knotless-helper/1", "0".repeat(64), "run", "x", "/"));
      assertEquals(-1, s.getInputStream().read());
    }
  }

  @Test
  void aRunWhoseCallerGoesAwayIsStopped() throws Exception {
    Path address = startDaemon(Duration.ofMinutes(1));
    Caller c = new Caller(address, "s3");
    c.run(List.of("origin", "knotless://alice.test/x"), "capabilities\n".getBytes());
    assertEquals("ok", c.ack());
    // git killed the helper: its connections close, the wait connection among them.
    c.wait.close();
    c.run.setSoTimeout(10_000);
    // Without the watch the run would wait for more of git's input for good, and this read would
    // time out; with it the run ends, whatever it had answered by then.
    String got = new String(c.run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue("option\nfetch\npush\n\n".startsWith(got), got);
  }

  @Test
  void anIdleDaemonEndsAndTakesItsAddressFileWithIt() throws Exception {
    Path address = startDaemon(Duration.ofMillis(300));
    serving.get(20, TimeUnit.SECONDS);
    assertFalse(Files.exists(address));
  }

  @Test
  void aDirectoryOthersCanEnterIsRefused() throws Exception {
    Path open = tmp.resolve("open");
    Files.createDirectories(open);
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
    HelperDaemon daemon =
        new HelperDaemon(open.resolve("helper-1"), Duration.ofMinutes(1), env -> repos());
    IOException e = assertThrows(IOException.class, daemon::start);
    assertTrue(e.getMessage().contains("mode 0700"), e.getMessage());
    assertFalse(Files.exists(open.resolve("helper-1")));
  }

  @Test
  void theAddressFileIsTheOwnersAlone() throws Exception {
    Path address = startDaemon(Duration.ofMinutes(1));
    assertEquals(
        "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(address)));
    assertEquals(
        "rwx------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(address.getParent())));
  }

  @Test
  void anIdleLimitThatIsNotAWholeNumberOfSecondsIsNamed() {
    assertEquals(Duration.ofSeconds(30), HelperDaemon.idleFrom("30"));
    assertEquals(HelperDaemon.DEFAULT_IDLE, HelperDaemon.idleFrom(null));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> HelperDaemon.idleFrom("10m"));
    assertTrue(e.getMessage().contains("KNOTLESS_HELPER_IDLE"), e.getMessage());
  }

  private Path startDaemon(Duration idle) throws IOException {
    Path dir = tmp.resolve("helpers");
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    Path address = dir.resolve("helper-1");
    HelperDaemon daemon = new HelperDaemon(address, idle, env -> repos());
    daemon.start();
    serving =
        CompletableFuture.runAsync(
            () -> {
              try {
                daemon.serve();
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    return address;
  }

  private KnotlessRepos repos() {
    return KnotlessRepos.fromEnvironment(environment());
  }

  private java.util.Map<String, String> environment() {
    return java.util.Map.of(
        "KNOTLESS_CACHE_DIR",
        tmp.resolve("cache").toString(),
        "KNOTLESS_CONFIG_DIR",
        tmp.resolve("config").toString(),
        "KNOTLESS_ALLOW_LOCAL_SERVICES",
        Boolean.toString(ServiceAddresses.process().allowsLoopback()));
  }

  private static byte[] fields(String... fields) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (String f : fields) {
      b.writeBytes(f.getBytes(StandardCharsets.UTF_8));
      b.write(0);
    }
    return b.toByteArray();
  }

  /** What bin/git-remote-knotless does, in Java: the three connections of one run. */
  private final class Caller {
    final Socket run;
    final Socket err;
    final Socket wait;
    final String token;
    final String id;

    Caller(Path address, String id) throws IOException {
      String[] f = Files.readString(address).strip().split(" ");
      int port = Integer.parseInt(f[0]);
      this.token = f[1];
      this.id = id;
      wait = open(port);
      err = open(port);
      run = open(port);
      wait.getOutputStream().write(fields("knotless-helper/1", token, "wait", id));
      err.getOutputStream().write(fields("knotless-helper/1", token, "err", id));
    }

    private Socket open(int port) throws IOException {
      Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
      s.setSoTimeout(20_000);
      sockets.add(s);
      return s;
    }

    void run(List<String> args, byte[] stdin) throws IOException {
      List<String> f = new ArrayList<>(List.of("knotless-helper/1", token, "run", id));
      f.add(tmp.toString());
      f.add(Integer.toString(args.size()));
      f.addAll(args);
      environment().forEach((k, v) -> f.add(k + "=" + v));
      f.add("");
      OutputStream out = run.getOutputStream();
      out.write(fields(f.toArray(String[]::new)));
      out.write(stdin);
      out.flush();
    }

    String ack() throws IOException {
      return line(run.getInputStream());
    }

    void stdin(byte[] b) throws IOException {
      run.getOutputStream().write(b);
    }

    void endStdin() throws IOException {
      run.getOutputStream().write(0);
    }

    String stdout() throws IOException {
      return new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    String stderr() throws IOException {
      return new String(err.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    String status() throws IOException {
      return line(wait.getInputStream());
    }

    private String line(InputStream in) throws IOException {
      StringBuilder s = new StringBuilder();
      int c;
      while ((c = in.read()) >= 0 && c != '\n') {
        s.append((char) c);
      }
      return s.toString();
    }
  }
}
