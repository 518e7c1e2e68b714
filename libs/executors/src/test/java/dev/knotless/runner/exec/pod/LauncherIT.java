package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.testing.LocalDocker;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The launcher in the smallest image it must run in: the test busybox, which has a shell but no
 * {@code nice} applet. A step of a run with a niceness (any run but a push to the default branch)
 * runs there all the same.
 */
class LauncherIT {

  /** Launches step 0 with {@code niceness} in a fresh busybox container; its exit and output. */
  private static String launch(int niceness, String script) throws Exception {
    LocalDocker.ensure();
    List<String> launch = Launcher.launchCommand(0, niceness);
    // The pod's /work, then the launcher exactly as the exec runs it, then what it left.
    String wrapper =
        "mkdir -p "
            + Launcher.WORK
            + " && \"$@\"; cat "
            + Launcher.STEPS
            + "/0/exit "
            + Launcher.STEPS
            + "/0/out";
    List<String> cmd =
        new java.util.ArrayList<>(
            List.of("docker", "run", "--rm", "-i", LocalDocker.BUSYBOX, "sh", "-c", wrapper, "w"));
    cmd.addAll(launch);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(Launcher.stdin(Map.of("GREETING", "hello"), script));
    }
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("the container did not end");
    }
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  @Test
  void aStepWithANicenessRunsInAnImageThatHasNoNice() throws Exception {
    assertEquals(
        "0\nhello from a low-priority run\n",
        launch(10, "echo \"$GREETING\" from a low-priority run"));
  }

  @Test
  void aStepsExitStatusIsRecordedWhateverItsNiceness() throws Exception {
    assertEquals("3\nfailing\n", launch(10, "echo failing; exit 3"));
    assertEquals("0\nmain\n", launch(0, "echo main"));
  }
}
