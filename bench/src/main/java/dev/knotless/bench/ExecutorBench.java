package dev.knotless.bench;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.RunCancellation;
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
 * How much later a run's first step speaks in a container than on the host, under gVisor's runsc
 * and under runc: the time from calling {@link Executor#run} to the first piece of the first step's
 * output in the log ({@code echo first}), and the whole time of a run of three trivial steps. Three
 * contenders: the docker executor under the harness's runsc ({@link LocalDocker#SANDBOX_RUNTIME}),
 * under its runc ({@link LocalDocker#TRUSTED_RUNTIME}), and the shell executor. Docker runs in the
 * local busybox image ({@link LocalDocker#BUSYBOX}), already present, so no pull is timed; the
 * daemon and image come from {@code testing/docker}.
 *
 * <p>All run the same spec against the same bare mirror (one commit, made here with plain git),
 * with their work roots on the same file system. Each iteration runs every contender once, in an
 * order turned by one each time, so all see the same load on the machine and none always runs right
 * after another's cleanup; a few warm-up runs of each come first (the JIT, the docker client's
 * connections, the daemon's caches).
 *
 * <p>Usage: {@code bin/bench Executor [iterations (20)] [warm-up runs (3)]}.
 */
public final class ExecutorBench {

  private ExecutorBench() {}

  /** One contender and its timings over the iterations, in nanoseconds. */
  private static final class Series {
    final String name;
    final Executor executor;
    final long[] toStarted;
    final long[] toFirstLine;
    final long[] threeSteps;

    Series(String name, Executor executor, int n) {
      this.name = name;
      this.executor = executor;
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
    String dockerHost = System.getenv().getOrDefault("DOCKER_HOST", DockerSettings.DEFAULT_HOST);
    DockerSettings docker =
        DockerSettings.defaults().withImage(LocalDocker.BUSYBOX).withDockerHost(dockerHost);
    // A runner DID each, so neither's sweep ever takes the other's container.
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
        "ExecutorBench: docker under runsc (%s) and runc (%s), %s at %s, against shell;"
            + " %d iterations each after %d warm-up runs; load average at start: %s%n%n",
        LocalDocker.SANDBOX_RUNTIME,
        LocalDocker.TRUSTED_RUNTIME,
        LocalDocker.BUSYBOX,
        dockerHost,
        iterations,
        warmUp,
        Figures.loadAverage());

    try (DockerExecutor runsc =
            new DockerExecutor(
                docker.withRuntimes(LocalDocker.SANDBOX_RUNTIME, null),
                did + "runsc",
                Files.createDirectories(root.resolve("work-runsc")),
                Clock.systemUTC());
        DockerExecutor runc =
            new DockerExecutor(
                docker.withRuntimes(LocalDocker.TRUSTED_RUNTIME, null),
                did + "runc",
                Files.createDirectories(root.resolve("work-runc")),
                Clock.systemUTC())) {
      runc.ping();
      List<Series> all =
          List.of(
              new Series("runsc", runsc, iterations),
              new Series("runc", runc, iterations),
              new Series(
                  "shell",
                  new ShellExecutor(Files.createDirectories(root.resolve("work-shell"))),
                  iterations));
      for (int i = 0; i < warmUp; i++) {
        for (Series s : all) {
          firstLine(s.executor, first);
          whole(s.executor, three);
        }
      }
      for (int i = 0; i < iterations; i++) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %2d", i + 1));
        for (int k = 0; k < all.size(); k++) {
          measure(all.get((i + k) % all.size()), i, first, three);
        }
        for (Series s : all) {
          line.append(
              String.format(
                  Locale.ROOT,
                  "  %s: first line %4d ms, 3 steps %4d ms;",
                  s.name,
                  s.toFirstLine[i] / 1_000_000,
                  s.threeSteps[i] / 1_000_000));
        }
        System.out.println(line);
      }
      runsc.removeLeftovers();
      runc.removeLeftovers();
      report(all);
    } finally {
      delete(root);
    }
    System.out.printf(Locale.ROOT, "%nload average at end: %s%n", Figures.loadAverage());
  }

  /** Each contender's figures, then each container's first line and run against shell's. */
  private static void report(List<Series> all) {
    System.out.println();
    System.out.printf(Locale.ROOT, "%-44s %9s %9s %9s%n", "measure (ms)", "median", "p90", "min");
    for (Series s : all) {
      row("run() -> first step started, " + s.name, s.toStarted);
    }
    for (Series s : all) {
      row("run() -> first line of first step, " + s.name, s.toFirstLine);
    }
    for (Series s : all) {
      row("3-step trivial run, whole, " + s.name, s.threeSteps);
    }
    System.out.println();
    Series shell = all.get(all.size() - 1);
    for (Series s : all.subList(0, all.size() - 1)) {
      difference("first line, " + s.name + " - shell", s.toFirstLine, shell.toFirstLine);
      difference("3-step run, " + s.name + " - shell", s.threeSteps, shell.threeSteps);
    }
    System.out.println("(goal: a container's first line under +1000 ms)");
  }

  private static void difference(String name, long[] a, long[] b) {
    System.out.printf(
        Locale.ROOT,
        "%s: median %+d ms, p90 %+d ms, min %+d ms%n",
        name,
        (percentile(a, 50) - percentile(b, 50)) / 1_000_000,
        (percentile(a, 90) - percentile(b, 90)) / 1_000_000,
        (Figures.smallest(a) - Figures.smallest(b)) / 1_000_000);
  }

  private static void measure(Series s, int i, RunSpec first, RunSpec three) {
    FirstLine f = firstLine(s.executor, first);
    s.toStarted[i] = f.started - f.begin;
    s.toFirstLine[i] = f.at - f.begin;
    s.threeSteps[i] = whole(s.executor, three);
  }

  /** Runs the one-step spec and checks its first line came, and said {@code first}. */
  private static FirstLine firstLine(Executor executor, RunSpec spec) {
    FirstLine listener = new FirstLine();
    RunResult result = executor.run(spec, new RunCancellation(), listener);
    check(executor, result);
    if (listener.at == 0 || !"first".equals(listener.text)) {
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
