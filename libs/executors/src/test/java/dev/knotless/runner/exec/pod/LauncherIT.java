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

  /**
   * Runs {@code wrapper} (then {@code command}) in a fresh busybox with {@code stdin}; its output.
   */
  private static String inBusybox(String wrapper, List<String> command, byte[] stdin)
      throws Exception {
    LocalDocker.ensure();
    List<String> cmd =
        new java.util.ArrayList<>(
            List.of("docker", "run", "--rm", "-i", LocalDocker.BUSYBOX, "sh", "-c", wrapper, "w"));
    cmd.addAll(command);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try (OutputStream in = p.getOutputStream()) {
      in.write(stdin);
    }
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("the container did not end");
    }
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  /** What the first step's exec reads when it brings the checkout: its code, then the tar. */
  private static byte[] codeThenTar(Map<String, String> env, String script, byte[] tar) {
    byte[] code = Launcher.stdinByLines(env, script);
    byte[] framedTar = Launcher.framed(tar);
    byte[] all = new byte[code.length + framedTar.length];
    System.arraycopy(code, 0, all, 0, code.length);
    System.arraycopy(framedTar, 0, all, code.length, framedTar.length);
    return all;
  }

  @Test
  void theFirstStepsExecUnpacksTheCheckoutThenRunsTheStepWithItsVariablesWhole(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path tree = java.nio.file.Files.createDirectories(dir.resolve("tree"));
    java.nio.file.Files.writeString(tree.resolve("README"), "from the checkout\n");
    java.nio.file.Path tar = dir.resolve("checkout.tar");
    Tar.write(tree, tar);
    // A value over several lines, with quotes and a backslash: read a line at a time, it must
    // reach the step as it was.
    String value = "two\nlines 'quoted' \\ \"and\"\n\ttabbed ";
    String out =
        inBusybox(
            "\"$@\"; echo \"launcher exited $?\"; cat "
                + Launcher.STEPS
                + "/0/exit "
                + Launcher.STEPS
                + "/0/out",
            Launcher.unpackAndLaunchCommand(0, 0),
            codeThenTar(
                Map.of("VALUE", value),
                "cat README; printf '%s|' \"$VALUE\"",
                java.nio.file.Files.readAllBytes(tar)));
    assertEquals(
        Launcher.UNPACKED + "\nlauncher exited 0\n0\nfrom the checkout\n" + value + "|", out);
  }

  @Test
  void aCheckoutThatCannotBeUnpackedLaunchesNothingAndSaysSo() throws Exception {
    String out =
        inBusybox(
            "\"$@\"; echo \"launcher exited $?\"; ls " + Launcher.STEPS + " | wc -l",
            Launcher.unpackAndLaunchCommand(0, 0),
            codeThenTar(Map.of(), "echo ran", "not a tar at all, and too short".getBytes()));
    org.junit.jupiter.api.Assertions.assertTrue(
        out.contains("the checkout was not unpacked\nlauncher exited " + Launcher.LAUNCH_FAILED)
            && !out.contains(Launcher.UNPACKED)
            && out.endsWith("0\n"),
        out);
  }

  @Test
  void aFollowerOfAStepThatEndedPrintsItsWholeOutputAndSaysSoByExiting0() throws Exception {
    // The step ended before its follower began: one follower prints all of it, from the offset.
    String out =
        inBusybox(
            "d="
                + Launcher.STEPS
                + "/0; mkdir -p $d && printf 'one\\ntwo\\n' >$d/out && echo 0 >$d/exit"
                + " && \"$@\"; echo \"follower exited $?\"",
            Launcher.followCommand(0, 4),
            new byte[0]);
    assertEquals("two\nfollower exited 0\n", out);
  }

  @Test
  void aFollowerOfAStepThatFailedPrintsItsWholeOutputAndSaysTheRecordIsToBeRead() throws Exception {
    // Exit 0 is kept for a record of 0: the runner then reads no record. Any other asks for it.
    String out =
        inBusybox(
            "d="
                + Launcher.STEPS
                + "/0; mkdir -p $d && printf 'one\\ntwo\\n' >$d/out && echo 3 >$d/exit"
                + " && \"$@\"; echo \"follower exited $?\"",
            Launcher.followCommand(0, 0),
            new byte[0]);
    assertEquals("one\ntwo\nfollower exited " + Launcher.FOLLOWED_NOT_ZERO + "\n", out);
  }
}
