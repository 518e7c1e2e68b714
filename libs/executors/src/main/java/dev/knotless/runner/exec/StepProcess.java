package dev.knotless.runner.exec;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One step's shell: {@code setsid sh -ec <script>} in the checkout, stdout and stderr merged into
 * one pipe, stdin from {@code /dev/null}.
 *
 * <p>Why {@code setsid}: a step must lead a process group of its own, so that one {@code
 * kill(-pgid, SIGKILL)} reaches everything it started, background grandchildren included. Java
 * cannot call {@code setpgid} in the child between fork and exec, and a process the JVM starts is
 * never a group leader, so util-linux's {@code setsid} makes a new session (and group) and then
 * execs {@code sh} in place, without a fork: the PID Java sees is the shell's, which is also the
 * group's id. Thread-safe: {@link #killGroup} may be called from any thread.
 */
final class StepProcess {

  private final Process process;

  private StepProcess(Process process) {
    this.process = process;
  }

  /**
   * Starts {@code script} in {@code dir}, with exactly {@code env} as its environment. The script
   * is an argument, so it is public; secrets must come in {@code env} only. A {@code niceness}
   * above 0 puts {@code nice -n <niceness>} between {@code setsid} and {@code sh}: it too execs in
   * place, so the PID is still the shell's and the group's, and everything the step starts inherits
   * the lower priority.
   */
  static StepProcess start(Path dir, String script, Map<String, String> env, int niceness)
      throws IOException {
    List<String> command = new ArrayList<>(List.of("setsid"));
    if (niceness > 0) {
      command.addAll(List.of("nice", "-n", Integer.toString(niceness)));
    }
    command.addAll(List.of("sh", "-ec", script));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().clear();
    pb.environment().putAll(env);
    return new StepProcess(pb.start());
  }

  long pid() {
    return process.pid();
  }

  /** The merged stdout and stderr. */
  InputStream output() {
    return process.getInputStream();
  }

  /** Waits up to {@code limit} for the shell to exit; true if it did. */
  boolean waitFor(Duration limit) throws InterruptedException {
    return process.waitFor(limit.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Waits for the shell to exit, however long: call only after a kill. */
  int waitForExit() throws InterruptedException {
    return process.waitFor();
  }

  int exitCode() {
    return process.exitValue();
  }

  /**
   * SIGKILLs the step's process group. Also kills the shell by its PID in case the kill came before
   * {@code setsid} had made the group, so a step killed as it starts never gets to run.
   */
  void killGroup() {
    boolean reached = ProcessGroups.kill(process.pid());
    if (!reached && process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
