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

  /**
   * Launches step 0 with {@code niceness} in a fresh busybox container: what the launch printed
   * (the step's output, as it follows it), its exit status, then the step's exit record.
   */
  private static String launch(int niceness, String script) throws Exception {
    // The pod's /work, then the launcher exactly as the exec runs it, then what it left.
    return inBusybox(
        "mkdir -p "
            + Launcher.WORK
            + " && \"$@\"; echo \"launch exited $?\"; cat "
            + Launcher.STEPS
            + "/0/exit",
        Launcher.launchCommand(0, niceness),
        Launcher.stdin(Map.of("GREETING", "hello"), script));
  }

  @Test
  void aStepWithANicenessRunsInAnImageThatHasNoNice() throws Exception {
    assertEquals(
        "hello from a low-priority run\nlaunch exited 0\n0\n",
        launch(10, "echo \"$GREETING\" from a low-priority run"));
  }

  @Test
  void theLaunchFollowsItsStepAndEndsAsAFollowerDoes() throws Exception {
    assertEquals(
        "failing\nlaunch exited " + Launcher.FOLLOWED_NOT_ZERO + "\n3\n",
        launch(10, "echo failing; exit 3"));
    assertEquals("main\nlaunch exited 0\n0\n", launch(0, "echo main"));
  }

  @Test
  void aLaunchThatFollowsTwoHundredThousandLinesPrintsEveryByteInOrder() throws Exception {
    String out = launch(0, "seq 1 200000");
    StringBuilder want = new StringBuilder();
    for (int i = 1; i <= 200_000; i++) {
      want.append(i).append('\n');
    }
    assertEquals(want + "launch exited 0\n0\n", out);
  }

  @Test
  void aLaunchWhoseReaderGoesAwayLeavesTheStepToRunAndRecordItsEnd() throws Exception {
    // The launch's stdout closes after one byte, as a dropped connection would: the step and its
    // waiter hold no stream of the exec's, so the step runs on and its record is written.
    String out =
        inBusybox(
            "mkdir -p "
                + Launcher.WORK
                + " && { \"$@\" | head -c 1 >/dev/null; }; sleep 2; cat "
                + Launcher.STEPS
                + "/0/exit "
                + Launcher.STEPS
                + "/0/out",
            Launcher.launchCommand(0, 0),
            Launcher.stdin(Map.of(), "echo one; sleep 0.5; echo two; sleep 0.5; echo three"));
    assertEquals("0\none\ntwo\nthree\n", out);
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
    // Read as it comes: a large output would fill the pipe and hold the container.
    var out =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return p.getInputStream().readAllBytes();
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    try (OutputStream in = p.getOutputStream()) {
      in.write(stdin);
    }
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("the container did not end");
    }
    return new String(out.get(1, TimeUnit.MINUTES), StandardCharsets.UTF_8);
  }

  /**
   * Runs {@link Launcher#unpackAndLaunchCommand} in a fresh busybox as the pod host does: the
   * framed tar, then, once the pod said it unpacked it, the step's code. Its whole output, then
   * what {@code after} printed.
   */
  private static String unpackAndLaunch(
      byte[] tar, Map<String, String> env, String script, String after) throws Exception {
    LocalDocker.ensure();
    List<String> cmd =
        new java.util.ArrayList<>(
            List.of(
                "docker",
                "run",
                "--rm",
                "-i",
                LocalDocker.BUSYBOX,
                "sh",
                "-c",
                "\"$@\"; echo \"launch exited $?\"; " + after,
                "w"));
    cmd.addAll(Launcher.unpackAndLaunchCommand(0, 0));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    var said = new java.io.ByteArrayOutputStream();
    try (OutputStream in = p.getOutputStream()) {
      in.write(Launcher.framed(tar));
      in.flush();
      var stdout = p.getInputStream();
      for (int b; (b = stdout.read()) >= 0; ) {
        said.write(b);
        if (b == '\n') {
          break;
        }
      }
      if (said.toString(StandardCharsets.UTF_8).equals(Launcher.UNPACKED + "\n")) {
        in.write(Launcher.stdin(env, script));
      }
    }
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("the container did not end");
    }
    return said.toString(StandardCharsets.UTF_8)
        + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  @Test
  void theFirstStepsExecUnpacksTheCheckoutThenRunsTheStepWithItsVariablesWhole(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path tree = java.nio.file.Files.createDirectories(dir.resolve("tree"));
    java.nio.file.Files.writeString(tree.resolve("README"), "from the checkout\n");
    java.nio.file.Path tar = dir.resolve("checkout.tar");
    Tar.write(tree, tar);
    // A value over several lines, with quotes and a backslash: it must reach the step as it was.
    String value = "two\nlines 'quoted' \\ \"and\"\n\ttabbed ";
    String out =
        unpackAndLaunch(
            java.nio.file.Files.readAllBytes(tar),
            Map.of("VALUE", value),
            "cat README; printf '%s|' \"$VALUE\"",
            "cat " + Launcher.STEPS + "/0/exit");
    assertEquals(
        Launcher.UNPACKED + "\nfrom the checkout\n" + value + "|launch exited 0\n0\n", out);
  }

  @Test
  void aCheckoutThatCannotBeUnpackedLaunchesNothingAndSaysSo() throws Exception {
    String out =
        unpackAndLaunch(
            "not a tar at all, and too short".getBytes(StandardCharsets.UTF_8),
            Map.of(),
            "echo ran",
            "ls " + Launcher.STEPS + " | wc -l");
    org.junit.jupiter.api.Assertions.assertTrue(
        out.contains("the checkout was not unpacked\nlaunch exited " + Launcher.LAUNCH_FAILED)
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
