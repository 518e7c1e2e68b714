package dev.knotless.bench;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.Executor;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.CacheUse;
import dev.knotless.runner.exec.docker.DockerExecutor;
import dev.knotless.runner.exec.docker.DockerSettings;
import dev.knotless.testing.LocalDocker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A build whose cache holds 10,000 small files, cold against warm, and what promotion costs. Each
 * iteration uses a workflow of its own, so its first run is cold: it makes the files (100
 * directories of 100 files, a few bytes each, as a package install leaves) and, as a passing push
 * to the default branch, promotes them. The second run, warm, finds them and only counts them. The
 * third changes 100 of them and promotes again, over a base of 10,000 files: the cost of the
 * hard-link clone. Promotion times are the store's own, from the runs' logs.
 *
 * <p>Runs as root (overlay mounts), with the docker daemon and busybox image of {@code
 * testing/docker}. Usage: {@code bin/bench Cache [iterations (3)]}.
 */
public final class CacheBench {

  private CacheBench() {}

  static final String BUILD =
      "if [ -f /cache/.done ]; then echo warm; test \"$(find /cache -type f | wc -l)\" = 10001;"
          + " else echo cold; i=0; while [ $i -lt 100 ]; do mkdir /cache/d$i; j=0;"
          + " while [ $j -lt 100 ]; do echo \"$i.$j\" > /cache/d$i/f$j; j=$((j+1)); done;"
          + " i=$((i+1)); done; touch /cache/.done; fi";

  static final String CHANGE =
      "j=0; while [ $j -lt 100 ]; do echo changed > /cache/d7/f$j; j=$((j+1)); done";

  private static final Pattern PROMOTED =
      Pattern.compile("promoted, (\\d+) bytes .* \\((\\d+) ms\\)");

  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    LocalDocker.ensure();
    Path root =
        Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "cache-bench-");
    Path mirror = root.resolve("mirror.git");
    String commit = ExecutorBench.makeMirror(root, mirror);
    Path work = Files.createDirectories(root.resolve("work"));
    CacheStore store = new CacheStore(root.resolve("caches"), CacheStore.DEFAULT_MAX_BYTES);
    DockerSettings settings = DockerSettings.defaults().withImage(LocalDocker.BUSYBOX);
    String did = "did:plc:bench" + Long.toHexString(System.nanoTime());
    System.out.printf(
        Locale.ROOT,
        "CacheBench: %d iterations, 10,000 files in the cache; load average at start: %s%n%n",
        iterations,
        Figures.loadAverage());
    long[] cold = new long[iterations];
    long[] warm = new long[iterations];
    long[] change = new long[iterations];
    long[] promoteNew = new long[iterations];
    long[] promoteChange = new long[iterations];
    try (DockerExecutor executor =
        new DockerExecutor(settings, did, work, Clock.systemUTC(), store)) {
      for (int i = 0; i < iterations; i++) {
        String workflow = "build-" + i;
        RunResult c = run(executor, mirror, commit, workflow, BUILD, CacheUse.PROMOTE_ON_PASS);
        cold[i] = took;
        promoteNew[i] = promotedMs(c) * 1_000_000;
        RunResult w = run(executor, mirror, commit, workflow, BUILD, CacheUse.READ);
        warm[i] = took;
        if (!w.logText().contains("warm")) {
          throw new IllegalStateException("the second run was not warm:\n" + w.logText());
        }
        RunResult ch = run(executor, mirror, commit, workflow, CHANGE, CacheUse.PROMOTE_ON_PASS);
        change[i] = took;
        promoteChange[i] = promotedMs(ch) * 1_000_000;
        System.out.printf(
            Locale.ROOT,
            "  %d  cold %s (promotion %d ms), warm %s, 100 changed %s (promotion %d ms)%n",
            i + 1,
            Figures.seconds(cold[i]),
            promoteNew[i] / 1_000_000,
            Figures.seconds(warm[i]),
            Figures.seconds(change[i]),
            promoteChange[i] / 1_000_000);
      }
      executor.removeLeftovers();
    } finally {
      ExecutorBench.delete(root);
    }
    System.out.printf(Locale.ROOT, "%n%-52s %9s %9s %9s%n", "measure (ms)", "median", "min", "max");
    row("cold build (makes 10,000 files), whole run", cold);
    row("  of which promotion of 10,000 new files", promoteNew);
    row("warm build (finds them), whole run", warm);
    row("100 files changed, whole run", change);
    row("  of which promotion over a 10,000-file base", promoteChange);
    System.out.printf(Locale.ROOT, "%nload average at end: %s%n", Figures.loadAverage());
  }

  private static long took;

  /** How long the last {@link #run} took, in nanoseconds. */
  static long took() {
    return took;
  }

  /** Runs {@code script} as workflow {@code workflow} with a cache at /cache; it must pass. */
  static RunResult run(
      Executor executor, Path mirror, String commit, String workflow, String script, CacheUse use) {
    return run(
        executor,
        mirror,
        commit,
        workflow,
        script,
        use,
        new dev.knotless.runner.exec.RunListener() {});
  }

  /** As above, {@code listener} hearing the run. */
  static RunResult run(
      Executor executor,
      Path mirror,
      String commit,
      String workflow,
      String script,
      CacheUse use,
      dev.knotless.runner.exec.RunListener listener) {
    RunSpec spec =
        RunSpec.of(mirror, commit, List.of(ExecStep.run("build", script, Duration.ZERO)))
            .withOption(new CacheRequest("bench/repo", workflow, List.of("/cache"), use));
    long begin = System.nanoTime();
    RunResult r = executor.run(spec, new RunCancellation(), listener);
    took = System.nanoTime() - begin;
    if (!(r.outcome() instanceof RunOutcome.Passed)) {
      throw new IllegalStateException("the run did not pass: " + r.outcome() + "\n" + r.logText());
    }
    return r;
  }

  static long promotedMs(RunResult r) {
    Matcher m = PROMOTED.matcher(r.logText());
    if (!m.find()) {
      throw new IllegalStateException("the run did not promote:\n" + r.logText());
    }
    return Long.parseLong(m.group(2));
  }

  static void row(String name, long[] nanos) {
    long[] s = nanos.clone();
    java.util.Arrays.sort(s);
    System.out.printf(
        Locale.ROOT,
        "%-52s %9d %9d %9d%n",
        name,
        s[(s.length - 1) / 2] / 1_000_000,
        s[0] / 1_000_000,
        s[s.length - 1] / 1_000_000);
  }
}
