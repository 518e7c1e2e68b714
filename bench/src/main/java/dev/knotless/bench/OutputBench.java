package dev.knotless.bench;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.OutputFilter;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.ShellExecutor;
import dev.knotless.runner.exec.docker.DockerExecutor;
import dev.knotless.runner.exec.docker.DockerSettings;
import dev.knotless.runner.mask.SecretMask;
import dev.knotless.testing.LocalDocker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a flood of output costs a run: a step that prints 200,000 numbered lines on stdout and as
 * many on stderr at once (19.4 MB), under the shell executor and the docker executor (runc and
 * gVisor), with and without a secret to mask. Each run's time less the time of the same run with a
 * step that prints nothing is the output's cost; the floor is the same script run by {@code sh} on
 * this machine with its output thrown away, which is what printing it costs the step itself.
 *
 * <p>Usage: {@code bin/bench Output [iterations (5)]}.
 */
public final class OutputBench {

  private OutputBench() {}

  static final String FLOOD =
      "(seq 1 200000 | sed 's/.*/out-&-abcdefghijklmnopqrstuvwxyz-0123456789/') &"
          + " (seq 1 200000 | sed 's/.*/err-&-abcdefghijklmnopqrstuvwxyz-0123456789/') >&2; wait";

  /** What {@link #FLOOD} prints: two streams of 200,000 lines of 43 bytes and the number. */
  static final long FLOOD_BYTES = 2L * lineBytes(200_000);

  private static long lineBytes(int count) {
    long n = 0;
    for (int i = 1; i <= count; i++) {
      n += 43 + Integer.toString(i).length();
    }
    return n;
  }

  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    LocalDocker.ensure();
    Path root = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "out-");
    Path mirror = root.resolve("mirror.git");
    String commit = ExecutorBench.makeMirror(root, mirror);
    String did = "did:plc:bench" + Long.toHexString(System.nanoTime());
    DockerSettings docker = DockerSettings.defaults().withImage(LocalDocker.BUSYBOX);
    OutputFilter masking = OutputFilter.masking(SecretMask.of(List.of("a-secret-Zq7xW3vK9p")));

    System.out.printf(
        Locale.ROOT,
        "OutputBench: 200,000 lines on each stream at once (%.1f MB); %d runs each; load average"
            + " at start: %s%n%n",
        FLOOD_BYTES / 1e6,
        iterations,
        Figures.loadAverage());
    // The shell executor's steps run the host's sh and tools; the containers run busybox's.
    long hostFloor = floor(iterations, "sh");
    long busyboxFloor = floor(iterations, "busybox", "sh");
    long cliCost = dockerCliCost(iterations);
    Map<String, Executor> executors = new LinkedHashMap<>();
    executors.put("shell", new ShellExecutor(Files.createDirectories(root.resolve("shell"))));
    executors.put(
        "docker, runc",
        new DockerExecutor(
            docker, did, Files.createDirectories(root.resolve("runc")), Clock.systemUTC()));
    executors.put(
        "docker, gVisor",
        new DockerExecutor(
            docker.withRuntimes(LocalDocker.SANDBOX_RUNTIME, null),
            did,
            Files.createDirectories(root.resolve("runsc")),
            Clock.systemUTC()));
    System.out.printf(
        Locale.ROOT,
        "%-16s %-9s %11s %11s %11s %9s %14s%n",
        "executor",
        "masking",
        "flood run",
        "quiet run",
        "output",
        "MB/s",
        "output / floor");
    try {
      for (Map.Entry<String, Executor> e : executors.entrySet()) {
        for (boolean masked : new boolean[] {false, true}) {
          OutputFilter filter = masked ? masking : OutputFilter.none();
          RunSpec flood = spec(mirror, commit, FLOOD).withFilter(filter);
          RunSpec quiet = spec(mirror, commit, "true").withFilter(filter);
          if (!(e.getValue() instanceof ShellExecutor)) {
            flood =
                flood.withOption(new dev.knotless.runner.exec.ContainerImage(LocalDocker.BUSYBOX));
            quiet =
                quiet.withOption(new dev.knotless.runner.exec.ContainerImage(LocalDocker.BUSYBOX));
          }
          run(e.getValue(), flood); // warm-up
          long[] floods = new long[iterations];
          long[] quiets = new long[iterations];
          for (int i = 0; i < iterations; i++) {
            floods[i] = run(e.getValue(), flood);
            quiets[i] = run(e.getValue(), quiet);
          }
          long cost = Figures.middle(floods) - Figures.middle(quiets);
          System.out.printf(
              Locale.ROOT,
              "%-16s %-9s %8d ms %8d ms %8d ms %9.0f %13.2fx%n",
              e.getKey(),
              masked ? "1 secret" : "none",
              Figures.middle(floods) / 1_000_000,
              Figures.middle(quiets) / 1_000_000,
              cost / 1_000_000,
              FLOOD_BYTES / 1e6 / (cost / 1e9),
              (double) cost / (e.getValue() instanceof ShellExecutor ? hostFloor : busyboxFloor));
        }
      }
    } finally {
      for (Executor x : executors.values()) {
        if (x instanceof AutoCloseable c) {
          c.close();
        }
      }
      ExecutorBench.delete(root);
    }
    System.out.printf(
        Locale.ROOT,
        "%nfloor: the flood printed to /dev/null by the host's sh (for shell), median %d ms, and by"
            + " busybox sh (for docker), median %d ms%nthe docker CLI's own exec of the flood into"
            + " /dev/null, less its exec of true: median %d ms (what the daemon's stream costs any"
            + " client)%ngoal: output under 3x its floor%nload average at end: %s%n",
        hostFloor / 1_000_000,
        busyboxFloor / 1_000_000,
        cliCost / 1_000_000,
        Figures.loadAverage());
  }

  private static RunSpec spec(Path mirror, String commit, String script) {
    return RunSpec.of(mirror, commit, List.of(ExecStep.run("flood", script, Duration.ZERO)));
  }

  /** The run's time; throws if it did not pass, since a failed run measures nothing. */
  private static long run(Executor executor, RunSpec spec) {
    long t0 = System.nanoTime();
    RunResult r = executor.run(spec, new RunCancellation());
    long took = System.nanoTime() - t0;
    if (!(r.outcome() instanceof RunOutcome.Passed)) {
      throw new IllegalStateException(executor.name() + ": " + r.logText());
    }
    return took;
  }

  /** The docker CLI's exec of the flood with its output to /dev/null, less an exec of true. */
  private static long dockerCliCost(int iterations) throws Exception {
    String container =
        new String(
                new ProcessBuilder(
                        "docker", "run", "-d", "--rm", LocalDocker.BUSYBOX, "sleep", "600")
                    .start()
                    .getInputStream()
                    .readAllBytes())
            .strip();
    try {
      long[] flood = new long[iterations];
      long[] quiet = new long[iterations];
      for (int i = 0; i < iterations; i++) {
        flood[i] = timed("docker", "exec", container, "sh", "-c", FLOOD);
        quiet[i] = timed("docker", "exec", container, "true");
      }
      return Figures.middle(flood) - Figures.middle(quiet);
    } finally {
      new ProcessBuilder("docker", "kill", container).start().waitFor();
    }
  }

  private static long timed(String... command) throws Exception {
    long t0 = System.nanoTime();
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed");
    }
    return System.nanoTime() - t0;
  }

  /** What the script costs with nothing reading its output but /dev/null. */
  private static long floor(int iterations, String... shell) throws Exception {
    long[] t = new long[iterations];
    for (int i = 0; i < iterations; i++) {
      List<String> command = new ArrayList<>(List.of(shell));
      command.addAll(List.of("-c", FLOOD));
      t[i] = timed(command.toArray(String[]::new));
    }
    return Figures.middle(t);
  }
}
