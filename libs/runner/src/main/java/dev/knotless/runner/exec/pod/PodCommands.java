package dev.knotless.runner.exec.pod;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** Short execs whose whole stdout is wanted, for the pod host. Stateless. */
final class PodCommands {

  /** How long a short command may take to report its exit status once its output ended. */
  static final Duration STATUS_WAIT = Duration.ofSeconds(30);

  private PodCommands() {}

  /**
   * Runs {@code command} in pod {@code name} with {@code stdin} written first (null for none), and
   * returns its stdout (at most {@code max} bytes, the rest read and dropped) and exit status.
   */
  static Result run(PodApi api, String name, List<String> command, InputStream stdin, long max)
      throws IOException, InterruptedException {
    try (PodApi.Exec exec = api.exec(name, command)) {
      if (stdin != null) {
        OutputStream in = exec.stdin();
        stdin.transferTo(in);
        in.flush();
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[64 * 1024];
      InputStream o = exec.stdout();
      for (int n; (n = o.read(buf)) >= 0; ) {
        int keep = (int) Math.max(0, Math.min(n, max - out.size()));
        out.write(buf, 0, keep);
      }
      return new Result(exec.exitCode(STATUS_WAIT), out.toByteArray());
    }
  }

  /** A short command's exit status and stdout. */
  record Result(int exit, byte[] out) {
    String text() {
      return new String(out, StandardCharsets.UTF_8);
    }
  }
}
