package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.mask.SecretMask;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every executor does alike, whatever runs the steps: shell, docker and pod executors each
 * extend this with how to make one, and must pass every test here unchanged. The steps use only
 * what busybox has, so any image the executors are given can run them.
 */
public abstract class ExecutorContract {

  protected GitFixture repo;
  protected Path work;
  private Executor executor;

  /** An executor whose runs' directories go under {@code work}. */
  protected abstract Executor executor(Path work) throws Exception;

  /** {@code spec} as this executor's runs need it (an image, say); unchanged by default. */
  protected RunSpec adapt(RunSpec spec) {
    return spec;
  }

  /**
   * True if pid 1 as a step sees it is the run's own (a container's or pod's init), whose
   * environment the step can read; the shell executor's is the host's.
   */
  protected boolean pidOneIsTheRuns() {
    return true;
  }

  @BeforeEach
  void makeRepositoryAndExecutor() throws Exception {
    Path tmp = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    repo = GitFixture.create(Files.createTempDirectory(tmp, "executor-contract-"));
    work = Files.createDirectories(repo.root.resolve("work"));
    executor = executor(work);
  }

  @AfterEach
  void nothingOfTheRunIsLeftOnTheRunnersSide() throws Exception {
    try (Stream<Path> left = Files.list(work)) {
      assertEquals(List.of(), left.toList(), "the run's directory was not removed");
    } finally {
      if (executor instanceof AutoCloseable c) {
        c.close();
      }
      try (Stream<Path> all = Files.walk(repo.root)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private RunSpec spec(ExecStep... steps) {
    return adapt(RunSpec.of(repo.mirror, repo.commit, List.of(steps)));
  }

  private static ExecStep step(String name, String script) {
    return ExecStep.run(name, script, Duration.ZERO);
  }

  private static String log(RunResult r) {
    return new String(r.log(), StandardCharsets.UTF_8);
  }

  /** Rebuilds the log from the pieces the listener hears, as live output does. */
  private static final class Rebuilt implements RunListener {
    private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();

    @Override
    public synchronized void logWritten(long offset, byte[] piece) {
      assertEquals(bytes.size(), offset, "pieces come in order, none missing");
      bytes.writeBytes(piece);
    }

    synchronized byte[] bytes() {
      return bytes.toByteArray();
    }
  }

  @Test
  void whatAStepWritesToStdoutIsItsLogByteForByte() {
    Rebuilt live = new Rebuilt();
    RunResult r =
        executor.run(
            spec(step("mixed", Floods.MIXED_SCRIPT), step("next", "true")),
            new RunCancellation(),
            live);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), r.steps().toString());
    Floods.assertSameBytes(
        Floods.mixed(), Floods.stepBytes(r.log(), "mixed", "next"), "the step's stdout");
    Floods.assertSameBytes(r.log(), live.bytes(), "the pieces heard as the run went");
  }

  @Test
  void whatAStepWritesToStderrIsItsLogByteForByte() {
    RunResult r =
        executor.run(
            spec(step("mixed", "exec 1>&2; " + Floods.MIXED_SCRIPT), step("next", "true")),
            new RunCancellation());

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), r.steps().toString());
    Floods.assertSameBytes(
        Floods.mixed(), Floods.stepBytes(r.log(), "mixed", "next"), "the step's stderr");
  }

  @Test
  void twoStreamsOf200000LinesAtOnceKeepEveryLineWholeOnceAndInOrder() {
    Rebuilt live = new Rebuilt();
    int count = 200_000;
    RunResult r =
        executor.run(
            spec(
                step(
                    "flood",
                    "("
                        + Floods.echoLines("out", count)
                        + ") & ("
                        + Floods.echoLines("err", count)
                        + ") >&2; wait"),
                step("next", "true")),
            new RunCancellation(),
            live);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), r.steps().toString());
    Floods.checkTwoStreamFlood(r.log(), count, "flood", "next");
    Floods.assertSameBytes(r.log(), live.bytes(), "the pieces heard as the run went");
  }

  @Test
  void aSecretPrinted100000TimesAtFullSpeedLeavesNoPieceInTheLog() {
    String secret = "flood-secret-Zq7xW3vK9pL2mN8r";
    Rebuilt live = new Rebuilt();
    RunResult r =
        executor.run(
            spec(step("leak", "yes \"token=$TOKEN\" | head -n 100000"), step("next", "true"))
                .withEnv(Map.of("TOKEN", secret))
                .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret)))),
            new RunCancellation(),
            live);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), r.steps().toString());
    String text = log(r);
    Floods.checkNoPieceOf(secret, text);
    Floods.checkNoPieceOf(secret, new String(live.bytes(), StandardCharsets.UTF_8));
    assertTrue(text.contains("token=***\n"), "the masked line is there");
  }

  @Test
  void stepsPassFailAndSkipInOrderWithTheSameNotesAndExitCodes() {
    RunResult r =
        executor.run(
            spec(
                step("write", "echo made > made.txt; cat README"),
                step("read", "test \"$(cat made.txt)\" = made; echo read it"),
                ExecStep.skipped("left out", "left out: on.refs does not match refs/heads/x"),
                step("fail", "echo about to fail; exit 3"),
                step("never", "echo never")),
            new RunCancellation());

    assertInstanceOf(RunOutcome.Failed.class, r.outcome(), log(r));
    assertEquals(
        List.of(
            "write:SUCCESS:0:",
            "read:SUCCESS:0:",
            "left out:SKIPPED:-1:left out: on.refs does not match refs/heads/x",
            "fail:FAILURE:3:exited with 3",
            "never:SKIPPED:-1:skipped: step \"fail\" failed"),
        r.steps().stream()
            .map(s -> s.name() + ":" + s.status() + ":" + s.exitCode() + ":" + s.note())
            .toList());
    String log = log(r);
    assertTrue(log.contains("==> write\nhello from the repository\n==> read\nread it\n"), log);
    assertTrue(
        log.contains("==> fail\nabout to fail\nexited with 3\n==> never\nskipped: step"), log);
  }

  @Test
  void aStepTimeoutKillsTheStepThoughItIgnoresTermAndForkedASleeper() {
    long t0 = System.nanoTime();
    RunResult r =
        executor.run(
            spec(
                ExecStep.run(
                    "stubborn",
                    "trap '' TERM; (trap '' TERM; sleep 600) & echo forked; sleep 600",
                    Duration.ofSeconds(2)),
                step("after", "echo never")),
            new RunCancellation());
    Duration took = Duration.ofNanos(System.nanoTime() - t0);

    assertTrue(took.compareTo(Duration.ofSeconds(60)) < 0, "the run took " + took);
    assertInstanceOf(RunOutcome.Failed.class, r.outcome(), log(r));
    assertEquals("killed after 2s, the step's time limit", r.steps().get(0).note());
    assertEquals(137, r.steps().get(0).exitCode());
    assertEquals("skipped: step \"stubborn\" failed", r.steps().get(1).note());
    assertTrue(log(r).contains("forked\nkilled after 2s"), log(r));
  }

  @Test
  void aCancelEndsTheRunningStepAtOnceAndRunsNothingAfter() throws Exception {
    RunCancellation cancellation = new RunCancellation();
    CountDownLatch started = new CountDownLatch(1);
    RunListener listener =
        RunListener.lines(
            line -> {
              if (line.equals("forked")) {
                started.countDown();
              }
            });
    RunSpec spec =
        spec(step("hang", "(sleep 600) & echo forked; sleep 600"), step("next", "echo next ran"));
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(() -> executor.run(spec, cancellation, listener));
    assertTrue(started.await(2, TimeUnit.MINUTES), "the step never printed");
    long t0 = System.nanoTime();
    cancellation.cancel("a newer commit");
    RunResult r = run.get(2, TimeUnit.MINUTES);
    Duration took = Duration.ofNanos(System.nanoTime() - t0);

    assertTrue(took.compareTo(Duration.ofSeconds(30)) < 0, "the cancel took " + took);
    assertEquals(new RunOutcome.Cancelled("a newer commit"), r.outcome());
    assertEquals(StepStatus.CANCELLED, r.steps().get(0).status());
    assertEquals("cancelled: a newer commit", r.steps().get(0).note());
    assertEquals("skipped: the run was cancelled", r.steps().get(1).note());
    assertFalse(log(r).contains("next ran"), log(r));
  }

  @Test
  void aSecretReachesTheStepMaskedAndNeitherPidOneNorAnArgument() throws Exception {
    String secret = "s3cret-" + Long.toHexString(System.nanoTime());
    OutputsDir seen = new OutputsDir();
    RunResult r =
        executor.run(
            spec(step(
                    "look",
                    "test \"$TOKEN\" = \"$EXPECTED\"; echo token is $TOKEN;"
                        + " { tr '\\0' '\\n' < /proc/1/environ || echo unreadable; }"
                        + " > \"$KNOTLESS_RUN_OUTPUTS/init\";"
                        + " cat /proc/*/cmdline | tr '\\0' ' ' > \"$KNOTLESS_RUN_OUTPUTS/args\""))
                .withEnv(Map.of("TOKEN", secret, "EXPECTED", secret))
                .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret)))),
            new RunCancellation(),
            RunListener.NONE,
            seen);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    assertTrue(log(r).contains("token is ***"), log(r));
    assertFalse(log(r).contains(secret), log(r));
    assertFalse(seen.get("init").contains(secret), "pid 1's environment holds the secret");
    if (pidOneIsTheRuns()) {
      assertTrue(seen.get("init").contains("PATH="), "pid 1's environment was read");
    }
    assertTrue(seen.get("args").contains("echo token is"), "the arguments were read");
    assertFalse(seen.get("args").contains(secret), "an argument list holds the secret");
  }

  @Test
  void anImageLeftInOutputsComesBackAsAnOutput() {
    RunResult r =
        executor.run(
            spec(step("shot", "printf PNG > \"$KNOTLESS_RUN_OUTPUTS/shot.png\"")),
            new RunCancellation());

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    assertEquals(
        List.of("shot.png"), r.outputs().stream().map(RunResult.OutputFile::name).toList());
  }

  @Test
  void outputsAreKeptByTheSameRulesWhereverTheStepsWroteThem() {
    String secret = "output-secret-" + Long.toHexString(System.nanoTime());
    String script =
        """
        cd "$KNOTLESS_RUN_OUTPUTS"
        i=0; while [ $i -lt 256 ]; do printf "\\\\$(printf %o $i)"; i=$((i+1)); done > bytes.png
        ln bytes.png again.png
        printf '<svg>a note</svg>\\n' > note.svg
        printf 'x=%s' "$TOKEN" > leak.png
        printf 'odd' > "$(printf 'bad\\nname.png')"
        mkdir sub; printf 'deep' > sub/deep.png
        head -c 6000000 /dev/zero > big.png
        ln -s /etc/passwd link.png
        printf 'not an image' > notes.txt
        """;
    RunResult r =
        executor.run(
            spec(step("shoot", script))
                .withEnv(Map.of("TOKEN", secret))
                .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret)))),
            new RunCancellation());

    String log = log(r);
    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log);
    assertEquals(
        List.of("again.png", "bytes.png", "note.svg"),
        r.outputs().stream().map(RunResult.OutputFile::name).toList());
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) {
      all[i] = (byte) i;
    }
    org.junit.jupiter.api.Assertions.assertArrayEquals(all, r.outputs().get(0).bytes());
    org.junit.jupiter.api.Assertions.assertArrayEquals(all, r.outputs().get(1).bytes());
    assertEquals(
        "<svg>a note</svg>\n", new String(r.outputs().get(2).bytes(), StandardCharsets.UTF_8));
    assertTrue(log.contains("output \"leak.png\" held back: it holds a secret\n"), log);
    assertTrue(log.contains("output \"bad\\nname.png\" refused: not a plain file name\n"), log);
    assertTrue(log.contains("output \"sub/deep.png\" refused: not a plain file name\n"), log);
    assertTrue(log.contains("output \"big.png\" left out: over 5 MiB\n"), log);
    assertFalse(log.contains("link.png"), log);
    assertFalse(log.contains(secret), log);
  }
}
