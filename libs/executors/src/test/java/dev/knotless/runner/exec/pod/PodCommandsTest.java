package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class PodCommandsTest {

  /**
   * An API server whose every exec prints {@code out} and then, if {@code hangs}, never ends. As on
   * the real socket, the exit status comes after the output: a client must read it all first.
   */
  private record Api(String out, boolean hangs) implements PodApi {
    @Override
    public void create(RunPod pod) {}

    @Override
    public void awaitRunning(String name, Duration limit) {}

    @Override
    public Exec exec(String name, List<String> command) {
      CountDownLatch closed = new CountDownLatch(1);
      InputStream printed = new ByteArrayInputStream(out.getBytes(StandardCharsets.UTF_8));
      return new Exec() {
        @Override
        public OutputStream stdin() {
          return OutputStream.nullOutputStream();
        }

        @Override
        public InputStream stdout() {
          return new InputStream() {
            @Override
            public int read() throws IOException {
              int b = printed.read();
              if (b >= 0 || !hangs) {
                return b;
              }
              try {
                closed.await();
              } catch (InterruptedException e) {
                throw new IOException(e);
              }
              throw new IOException("connection closed");
            }
          };
        }

        @Override
        public int exitCode(Duration limit) throws IOException {
          if (closed.getCount() == 0 || printed.available() > 0) {
            throw new IOException("no status");
          }
          return 0;
        }

        @Override
        public void close() {
          closed.countDown();
        }
      };
    }

    @Override
    public void delete(String name) {}

    @Override
    public List<Listed> list(String runnerLabel) {
      return List.of();
    }
  }

  @Test
  void aCommandThatEndsGivesItsOutputAndStatus() throws Exception {
    PodCommands.Result r =
        PodCommands.run(
            new Api("3\n", false), "p", Launcher.exitCommand(0), null, 64, Duration.ofSeconds(5));
    assertEquals(0, r.exit());
    assertEquals("3\n", r.text());
  }

  @Test
  void anApiServerThatStopsAnsweringMidExecIsAnErrorWithinTheLimitNotAHang() {
    long t0 = System.nanoTime();
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                PodCommands.run(
                    new Api("partial", true),
                    "p",
                    Launcher.killCommand(0),
                    null,
                    64,
                    Duration.ofMillis(300)));
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    assertTrue(e.getMessage().startsWith("knotless-kill did not end within"), e.getMessage());
    assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "it took " + took);
  }

  @Test
  void aReaderThatStopsAtATarsEndMarkerStillGetsTheStatusBehindItsPadding() throws Exception {
    String archive = "x".repeat(512) + "\0".repeat(10 * 1024 - 512);
    int exit =
        PodCommands.stream(
            new Api(archive, false),
            "p",
            CopyScripts.packWorkCommand(),
            null,
            Duration.ofSeconds(5),
            out -> out.readNBytes(1024));
    assertEquals(0, exit);
  }

  @Test
  void aCommandThatGoesOnPastWhatItsReaderTookIsAnErrorNamingIt() {
    String endless = "\0".repeat((int) PodCommands.TRAILING_MAX + 1024);
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                PodCommands.stream(
                    new Api(endless, false),
                    "p",
                    CopyScripts.packWorkCommand(),
                    null,
                    Duration.ofSeconds(5),
                    out -> out.readNBytes(512)));
    assertTrue(e.getMessage().startsWith("knotless-pack-work wrote more than"), e.getMessage());
  }
}
