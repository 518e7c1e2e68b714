package dev.knotless.bench;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.ShellExecutor;
import dev.knotless.runner.exec.docker.DockerExecutor;
import dev.knotless.runner.exec.docker.DockerSettings;
import dev.knotless.testing.LocalDocker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * How much later a run's first step speaks under the docker executor than under the shell executor:
 * the time from calling {@link Executor#run} to the first piece of the first step's output in the
 * log ({@code echo first}), and the whole time of a run of three trivial steps. The docker executor
 * runs in the local busybox image ({@link LocalDocker#BUSYBOX}), already present, so no pull is
 * timed; the daemon and image come from {@code testing/docker}.
 *
 * <p>Both executors run the same spec against the same bare mirror (one commit, made here with
 * plain git), with their work roots on the same file system. Iterations alternate docker and shell
 * so both see the same load on the machine; a few warm-up runs of each come first (the JIT, the
 * docker client's connections, the daemon's caches).
 *
 * <p>Usage: {@code bin/bench Executor [iterations (20)] [warm-up runs (3)]}.
 */
public final class ExecutorBench {

  private ExecutorBench() {}

  /** When one run's first step started and first spoke, from the call of {@code run}. */
  private static final class FirstLine implements RunListener {
    final long begin = System.nanoTime();
    volatile long started;
    volatile long firstLine;
    volatile String text;

    @Override
    public void stepStarted(StepStarted event) {
      if (event.index() == 0 && started == 0) {
        started = System.nanoTime();
      }
    }

    @Override
    public void logWritten(long offset, byte[] bytes) {
      // The first piece after the step started is its output: the header came before.
      if (started != 0 && firstLine == 0) {
        firstLine = System.nanoTime();
        String written = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        text = written.lines().findFirst().orElse("");
      }
    }
  }

  /** One executor's timings over the iterations, in nanoseconds. */
  private static final class Series {
    final String name;
    final long[] toStarted;
    final long[] toFirstLine;
    final long[] threeSteps;

    Series(String name, int n) {
      this.name = name;
      this.toStarted = new long[n];
      this.toFirstLine = new long[n];
      this.threeSteps = new long[n];
    }
  }

  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    int warmUp = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    LocalDocker.ensure();
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    Path root = Files.createTempDirectory(tmp, "executor-bench-");
    Path mirror = root.resolve("mirror.git");
    String commit = makeMirror(root, mirror);
    Path shellWork = Files.createDirectories(root.resolve("work-shell"));
    Path dockerWork = Files.createDirectories(root.resolve("work-docker"));
    String dockerHost = System.getenv().getOrDefault("DOCKER_HOST", DockerSettings.DEFAULT_HOST);
    DockerSettings settings =
        DockerSettings.defaults().withImage(LocalDocker.BUSYBOX).withDockerHost(dockerHost);
    String did = "did:plc:bench" + Long.toHexString(System.nanoTime());

    RunSpec first =
        RunSpec.of(mirror, commit, List.of(ExecStep.run("first", "echo first", Duration.ZERO)));
    RunSpec three =
        RunSpec.of(
            mirror,
            commit,
            List.of(
                ExecStep.run("one", "echo one", Duration.ZERO),
                ExecStep.run("two", "echo two", Duration.ZERO),
                ExecStep.run("three", "echo three", Duration.ZERO)));

    System.out.printf(
        Locale.ROOT,
        "ExecutorBench: docker (%s at %s) against shell; %d iterations each after %d warm-up"
            + " runs; load average at start: %s%n%n",
        LocalDocker.BUSYBOX,
        dockerHost,
        iterations,
        warmUp,
        Figures.loadAverage());

    Series docker = new Series("docker", iterations);
    Series shell = new Series("shell", iterations);
    try (DockerExecutor dockerExecutor =
        new DockerExecutor(settings, did, dockerWork, Clock.systemUTC())) {
      dockerExecutor.ping();
      Executor shellExecutor = new ShellExecutor(shellWork);
      for (int i = 0; i < warmUp; i++) {
        firstLine(dockerExecutor, first);
        firstLine(shellExecutor, first);
        whole(dockerExecutor, three);
        whole(shellExecutor, three);
      }
      for (int i = 0; i < iterations; i++) {
        // Alternate which goes first, so neither always runs right after the other's cleanup.
        boolean dockerFirst = i % 2 == 0;
        if (dockerFirst) {
          measure(dockerExecutor, docker, i, first, three);
          measure(shellExecutor, shell, i, first, three);
        } else {
          measure(shellExecutor, shell, i, first, three);
          measure(dockerExecutor, docker, i, first, three);
        }
        System.out.printf(
            Locale.ROOT,
            "  %2d  first line: docker %4d ms, shell %4d ms;  3-step run: docker %4d ms, shell %4d"
                + " ms%n",
            i + 1,
            docker.toFirstLine[i] / 1_000_000,
            shell.toFirstLine[i] / 1_000_000,
            docker.threeSteps[i] / 1_000_000,
            shell.threeSteps[i] / 1_000_000);
      }
      dockerExecutor.removeLeftovers();
    } finally {
      delete(root);
    }

    System.out.println();
    System.out.printf(Locale.ROOT, "%-44s %9s %9s %9s%n", "measure (ms)", "median", "p90", "min");
    row("run() -> first step started, docker", docker.toStarted);
    row("run() -> first step started, shell", shell.toStarted);
    row("run() -> first line of first step, docker", docker.toFirstLine);
    row("run() -> first line of first step, shell", shell.toFirstLine);
    row("3-step trivial run, whole, docker", docker.threeSteps);
    row("3-step trivial run, whole, shell", shell.threeSteps);
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "first line, docker - shell: median %+d ms, p90 %+d ms, min %+d ms (goal: under +1000 ms)%n",
        (percentile(docker.toFirstLine, 50) - percentile(shell.toFirstLine, 50)) / 1_000_000,
        (percentile(docker.toFirstLine, 90) - percentile(shell.toFirstLine, 90)) / 1_000_000,
        (Figures.smallest(docker.toFirstLine) - Figures.smallest(shell.toFirstLine)) / 1_000_000);
    System.out.printf(
        Locale.ROOT,
        "3-step run, docker - shell: median %+d ms, p90 %+d ms, min %+d ms%n",
        (percentile(docker.threeSteps, 50) - percentile(shell.threeSteps, 50)) / 1_000_000,
        (percentile(docker.threeSteps, 90) - percentile(shell.threeSteps, 90)) / 1_000_000,
        (Figures.smallest(docker.threeSteps) - Figures.smallest(shell.threeSteps)) / 1_000_000);
    System.out.printf(Locale.ROOT, "%nload average at end: %s%n", Figures.loadAverage());
  }

  private static void measure(Executor executor, Series s, int i, RunSpec first, RunSpec three) {
    FirstLine f = firstLine(executor, first);
    s.toStarted[i] = f.started - f.begin;
    s.toFirstLine[i] = f.firstLine - f.begin;
    s.threeSteps[i] = whole(executor, three);
  }

  /** Runs the one-step spec and checks its first line came, and said {@code first}. */
  private static FirstLine firstLine(Executor executor, RunSpec spec) {
    FirstLine listener = new FirstLine();
    RunResult result = executor.run(spec, new RunCancellation(), listener);
    check(executor, result);
    if (listener.firstLine == 0 || !"first".equals(listener.text)) {
      throw new IllegalStateException(
          executor.name() + ": the first step's first line was " + listener.text);
    }
    return listener;
  }

  /** The whole time of one run of {@code spec}, from calling run to its return. */
  private static long whole(Executor executor, RunSpec spec) {
    long begin = System.nanoTime();
    RunResult result = executor.run(spec, new RunCancellation());
    long took = System.nanoTime() - begin;
    check(executor, result);
    return took;
  }

  private static void check(Executor executor, RunResult result) {
    if (!(result.outcome() instanceof RunOutcome.Passed)) {
      throw new IllegalStateException(
          executor.name() + " run did not pass: " + result.outcome() + "\n" + result.logText());
    }
  }

  private static void row(String name, long[] nanos) {
    System.out.printf(
        Locale.ROOT,
        "%-44s %9d %9d %9d%n",
        name,
        percentile(nanos, 50) / 1_000_000,
        percentile(nanos, 90) / 1_000_000,
        Figures.smallest(nanos) / 1_000_000);
  }

  /** The nearest-rank percentile: the smallest value at least {@code p}% of the values reach. */
  static long percentile(long[] values, int p) {
    long[] s = values.clone();
    Arrays.sort(s);
    int rank = (int) Math.ceil(p / 100.0 * s.length);
    return s[Math.max(0, Math.min(s.length, rank) - 1)];
  }

  /** Makes {@code root/src} with one commit and a bare clone of it at {@code mirror}. */
  static String makeMirror(Path root, Path mirror) throws IOException, InterruptedException {
    Path src = Files.createDirectories(root.resolve("src"));
    git(src, "init", "--quiet", "--initial-branch=main");
    Files.writeString(src.resolve("README"), "the executor bench's repository\n");
    git(src, "add", "README");
    git(
        src,
        "-c",
        "user.name=Bench",
        "-c",
        "user.email=bench@example.com",
        "commit",
        "--quiet",
        "-m",
        "first");
    String commit = git(src, "rev-parse", "HEAD").strip();
    git(root, "clone", "--quiet", "--bare", src.toString(), mirror.toString());
    return commit;
  }

  private static String git(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("GIT_"));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(command + " failed: " + out);
    }
    return out;
  }

  static void delete(Path root) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
