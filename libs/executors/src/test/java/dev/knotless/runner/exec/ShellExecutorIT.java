package dev.knotless.runner.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.mask.SecretMask;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The shell executor against real processes and a real git mirror. */
class ShellExecutorIT {

  private static GitFixture repo;
  private Path work;
  private Path scratch;

  @BeforeAll
  static void makeMirror() throws Exception {
    repo = GitFixture.createTemp("shell-executor-it-");
  }

  @AfterAll
  static void removeMirror() throws IOException {
    repo.delete();
  }

  @BeforeEach
  void makeWorkRoot() throws IOException {
    work = Files.createTempDirectory(repo.root, "work-");
    scratch = Files.createTempDirectory(repo.root, "scratch-");
  }

  @AfterEach
  void theRunsDirectoryIsGone() throws IOException {
    try (Stream<Path> left = Files.list(work)) {
      assertEquals(List.of(), left.toList(), "the run's directory under --work was not removed");
    }
  }

  private RunResult run(RunSpec spec) {
    return new ShellExecutor(work).run(spec, new RunCancellation());
  }

  private RunSpec spec(ExecStep... steps) {
    return repo.spec(steps);
  }

  private static ExecStep step(String name, String script) {
    return ExecStep.run(name, script, Duration.ZERO);
  }

  @Test
  void thePiecesALogIsWrittenInRebuildItByteForByteMasked() throws Exception {
    java.io.ByteArrayOutputStream rebuilt = new java.io.ByteArrayOutputStream();
    List<Long> offsets = new CopyOnWriteArrayList<>();
    RunListener listener =
        new RunListener() {
          @Override
          public void logWritten(long offset, byte[] bytes) {
            offsets.add(offset);
            rebuilt.writeBytes(bytes);
          }
        };
    RunSpec spec =
        spec(
                step("talk", "printf 'a\\r\\nsecret-value-1 b\\n'; printf 'no break'"),
                step("fail", "echo failing; exit 3"),
                step("never", "echo never"))
            .withPreamble(List.of("==> preamble line"))
            .withFilter(
                OutputFilter.masking(
                    dev.knotless.runner.mask.SecretMask.of(List.of("secret-value-1"))));
    RunResult result = new ShellExecutor(work).run(spec, new RunCancellation(), listener);

    assertEquals("failure", result.outcome().status());
    assertArrayEquals(result.log(), rebuilt.toByteArray(), result.logText());
    assertFalse(result.logText().contains("secret-value-1"), result.logText());
    long at = 0;
    for (int i = 0; i < offsets.size(); i++) {
      assertTrue(offsets.get(i) >= at, "pieces come in file order");
      at = offsets.get(i);
    }
  }

  @Test
  void passingRunWritesEachStepsOutputUnderItsHeader() {
    List<String> lines = new CopyOnWriteArrayList<>();
    RunListener listener = RunListener.lines(lines::add);
    RunSpec spec =
        spec(step("greet", "echo hello; echo to stderr >&2"), step("read", "cat README"));
    RunResult result = new ShellExecutor(work).run(spec, new RunCancellation(), listener);

    assertInstanceOf(RunOutcome.Passed.class, result.outcome());
    assertEquals("success", result.outcome().status());
    assertEquals(
        "==> greet\nhello\nto stderr\n==> read\nhello from the repository\n", result.logText());
    for (StepResult s : result.steps()) {
      assertEquals(StepStatus.SUCCESS, s.status());
      assertEquals(0, s.exitCode());
      assertFalse(s.ended().isBefore(s.started()));
    }
    assertEquals(
        List.of("==> greet", "hello", "to stderr", "==> read", "hello from the repository"),
        lines,
        "the listener hears the log's lines as they are written");
  }

  @Test
  void failingStepFailsTheRunAndSkipsTheRestWithTheReason() throws IOException {
    Path touched = scratch.resolve("later-ran");
    RunResult result =
        run(
            spec(
                step("build", "echo building; exit 3"),
                step("test", "touch " + touched),
                step("deploy", "touch " + touched)));

    assertEquals(new RunOutcome.Failed("build"), result.outcome());
    assertEquals("failure", result.outcome().status());
    assertEquals(StepStatus.FAILURE, result.steps().get(0).status());
    assertEquals(3, result.steps().get(0).exitCode());
    assertEquals(StepStatus.SKIPPED, result.steps().get(1).status());
    assertEquals(StepStatus.SKIPPED, result.steps().get(2).status());
    assertEquals(StepResult.NO_EXIT, result.steps().get(1).exitCode());
    assertEquals(
        "==> build\nbuilding\nexited with 3\n"
            + "==> test\nskipped: step \"build\" failed\n"
            + "==> deploy\nskipped: step \"build\" failed\n",
        result.logText());
    assertFalse(Files.exists(touched), "a step after the failure ran");
  }

  @Test
  void stepLeftOutForItsRefShowsWhyAndTheRunStillPasses() {
    RunResult result =
        run(
            spec(
                ExecStep.skipped("deploy", "skipped: on.refs [refs/heads/main] does not match x"),
                step("after", "echo after")));

    assertInstanceOf(RunOutcome.Passed.class, result.outcome());
    assertEquals(StepStatus.SKIPPED, result.steps().get(0).status());
    assertEquals(
        "==> deploy\nskipped: on.refs [refs/heads/main] does not match x\n==> after\nafter\n",
        result.logText());
  }

  @Test
  void stepTimeoutKillsTheStepAndTheGrandchildItLeftInTheBackground() throws Exception {
    Path pidFile = scratch.resolve("grandchild");
    RunSpec spec =
        spec(
                ExecStep.run(
                    "hang",
                    "sleep 300 & echo $! > " + pidFile + "; echo started; sleep 300",
                    Duration.ofSeconds(1)),
                step("next", "echo never"))
            .withLimits(new TimeLimits(Duration.ofSeconds(30), Duration.ZERO, false));
    long t0 = System.nanoTime();
    RunResult result = run(spec);
    Duration took = Duration.ofNanos(System.nanoTime() - t0);

    assertTrue(took.compareTo(Duration.ofSeconds(15)) < 0, "the run took " + took);
    StepResult hang = result.steps().get(0);
    assertEquals(StepStatus.FAILURE, hang.status());
    assertEquals("killed after 1s, the step's time limit", hang.note());
    assertEquals(137, hang.exitCode());
    assertEquals(StepStatus.SKIPPED, result.steps().get(1).status());
    assertTrue(
        result.logText().contains("started\nkilled after 1s, the step's time limit\n"),
        result.logText());
    long grandchild = Long.parseLong(Files.readString(pidFile).strip());
    assertTrue(
        Procs.await(Duration.ofSeconds(5), () -> Procs.dead(grandchild)),
        "the background sleep " + grandchild + " outlived its step");
  }

  @Test
  void stepKilledWhenTheRunsTimeIsUpSaysSoAndSkipsTheRest() {
    RunSpec spec =
        spec(step("quick", "true"), step("slow", "sleep 300"), step("after", "echo never"))
            .withLimits(TimeLimits.defaults().withRunTimeout(Duration.ofSeconds(2)));
    RunResult result = run(spec);

    assertEquals(new RunOutcome.Failed("slow"), result.outcome());
    assertEquals(StepStatus.SUCCESS, result.steps().get(0).status());
    assertEquals("killed as the run's 2s were up", result.steps().get(1).note());
    assertEquals("skipped: the run's 2s were up", result.steps().get(2).note());
    assertEquals(
        "==> quick\n==> slow\nkilled as the run's 2s were up\n"
            + "==> after\nskipped: the run's 2s were up\n",
        result.logText());
  }

  @Test
  void runAskedForByNameMayOutrunTheStepTimeoutWithTheStepsOwn() {
    // --step-timeout of 1s would kill "sleep 2"; the step's own 10s holds instead.
    TimeLimits limits =
        new TimeLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), false).forRunAskedByName();
    RunResult result =
        run(spec(ExecStep.run("long", "sleep 2", Duration.ofSeconds(10))).withLimits(limits));

    assertInstanceOf(RunOutcome.Passed.class, result.outcome(), result.logText());
  }

  @Test
  void cancelMidStepKillsItsProcessGroupAndEndsTheRunCancelled() throws Exception {
    Path pidFile = scratch.resolve("grandchild");
    Path touched = scratch.resolve("later-ran");
    RunCancellation cancellation = new RunCancellation();
    RunSpec spec =
        spec(
            step("hang", "sleep 300 & echo $! > " + pidFile + "; sleep 300"),
            step("next", "touch " + touched));
    CompletableFuture<RunResult> running =
        CompletableFuture.supplyAsync(() -> new ShellExecutor(work).run(spec, cancellation));
    long grandchild = Procs.awaitPid(pidFile);
    long t0 = System.nanoTime();
    assertTrue(cancellation.cancel("a newer commit"));
    RunResult result = running.get(20, TimeUnit.SECONDS);
    Duration took = Duration.ofNanos(System.nanoTime() - t0);

    assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "the cancel took " + took);
    assertEquals(new RunOutcome.Cancelled("a newer commit"), result.outcome());
    assertEquals("cancelled", result.outcome().status());
    assertEquals(StepStatus.CANCELLED, result.steps().get(0).status());
    assertEquals("cancelled: a newer commit", result.steps().get(0).note());
    assertEquals(StepStatus.SKIPPED, result.steps().get(1).status());
    assertEquals("skipped: the run was cancelled", result.steps().get(1).note());
    assertTrue(
        Procs.await(Duration.ofSeconds(5), () -> Procs.dead(grandchild)),
        "the background sleep " + grandchild + " outlived the cancel");
    assertFalse(Files.exists(touched));
    assertFalse(cancellation.cancel("a stop"), "a later cancel replaced the first reason");
  }

  @Test
  void runCancelledBeforeItStartsRunsNothing() {
    Path touched = scratch.resolve("ran");
    RunCancellation cancellation = new RunCancellation();
    cancellation.cancel("a stop");
    RunResult result =
        new ShellExecutor(work).run(spec(step("first", "touch " + touched)), cancellation);

    assertEquals(new RunOutcome.Cancelled("a stop"), result.outcome());
    assertEquals(StepStatus.SKIPPED, result.steps().get(0).status());
    assertFalse(Files.exists(touched), "a step ran in a cancelled run");
  }

  @Test
  void secretInTheEnvironmentIsMaskedInTheLogAndInNoArgumentList() throws Exception {
    String secret = "s3cr3t-value-" + System.nanoTime();
    Path pidFile = scratch.resolve("step");
    Path go = scratch.resolve("go");
    RunSpec spec =
        spec(step(
                "leak",
                "echo \"token=$SECRET_TOKEN\"\n"
                    // The secret written in two pieces still reaches the masker whole.
                    + "printf '%s' \"$(echo \"$SECRET_TOKEN\" | cut -c1-6)\"; sleep 0.2\n"
                    + "echo \"$SECRET_TOKEN\" | cut -c7-\n"
                    + "sleep 300 &\n"
                    + "echo $$ > "
                    + pidFile
                    + "\n"
                    + "while [ ! -e "
                    + go
                    + " ]; do sleep 0.05; done"))
            .withEnv(Map.of("SECRET_TOKEN", secret))
            .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret))));
    CompletableFuture<RunResult> running =
        CompletableFuture.supplyAsync(
            () -> new ShellExecutor(work).run(spec, new RunCancellation()));
    long shell = Procs.awaitPid(pidFile);

    assertTrue(
        Procs.environment(shell).contains("SECRET_TOKEN=" + secret),
        "the step's environment lacks the secret, so this test proves nothing");
    assertEquals(shell, Procs.processGroup(shell), "the step does not lead its process group");
    for (String cmdline : Procs.allCommandLines()) {
      assertFalse(cmdline.contains(secret), "a process has the secret in its arguments");
    }
    Files.createFile(go);
    RunResult result = running.get(30, TimeUnit.SECONDS);

    assertInstanceOf(RunOutcome.Passed.class, result.outcome(), result.logText());
    assertFalse(result.logText().contains(secret), result.logText());
    assertFalse(result.logText().contains(secret.substring(0, 6) + "\n"), result.logText());
    assertTrue(result.logText().contains("token=***\n***\n"), result.logText());
  }

  @Test
  void checkoutHardLinksTheMirrorsObjectsAndHasNoAlternates() throws Exception {
    Path dirFile = scratch.resolve("checkout");
    Path go = scratch.resolve("go");
    RunSpec spec =
        spec(
            step(
                "look",
                "test \"$(git rev-parse HEAD)\" = "
                    + repo.commit
                    + "\ngit cat-file -e HEAD^{tree}\npwd > "
                    + dirFile
                    + "\nwhile [ ! -e "
                    + go
                    + " ]; do sleep 0.05; done"));
    CompletableFuture<RunResult> running =
        CompletableFuture.supplyAsync(
            () -> new ShellExecutor(work).run(spec, new RunCancellation()));
    assertTrue(Procs.await(Duration.ofSeconds(10), () -> Files.exists(dirFile)));
    Path checkout = Path.of(Files.readString(dirFile).strip());
    try {
      assertTrue(checkout.startsWith(work), checkout + " is not under --work");
      assertFalse(Files.exists(checkout.resolve(".git/objects/info/alternates")));
      String object = repo.commit.substring(0, 2) + "/" + repo.commit.substring(2);
      Path mine = checkout.resolve(".git/objects").resolve(object);
      Path mirrors = repo.mirror.resolve("objects").resolve(object);
      assertEquals(Files.getAttribute(mirrors, "unix:ino"), Files.getAttribute(mine, "unix:ino"));
      assertTrue((Integer) Files.getAttribute(mine, "unix:nlink") > 1);
    } finally {
      Files.createFile(go);
    }
    RunResult result = running.get(30, TimeUnit.SECONDS);
    assertInstanceOf(RunOutcome.Passed.class, result.outcome(), result.logText());
  }

  @Test
  void commitMissingFromTheMirrorIsAnErrorAndRunsNothing() {
    Path touched = scratch.resolve("ran");
    String missing = "0123456789abcdef0123456789abcdef01234567";
    RunResult result =
        run(RunSpec.of(repo.mirror, missing, List.of(step("first", "touch " + touched))));

    RunOutcome.Errored error = assertInstanceOf(RunOutcome.Errored.class, result.outcome());
    assertEquals("error", error.status());
    assertTrue(error.message().startsWith("could not check out " + missing), error.message());
    assertTrue(result.logText().startsWith("could not check out " + missing), result.logText());
    assertEquals(StepStatus.SKIPPED, result.steps().get(0).status());
    assertFalse(Files.exists(touched));
  }

  @Test
  void stepSeesTheRunsEnvironmentAndOnlyPathAndHomeOfTheRunners() {
    Map<String, String> runnerEnv =
        Map.of(
            "PATH", System.getenv("PATH"),
            "HOME", "/home/runner-test",
            "KNOTLESS_PASSWORD", "the-runners-own-password");
    RunSpec spec =
        spec(step(
                "env",
                "echo \"home=$HOME\"; echo \"pw=${KNOTLESS_PASSWORD:-unset}\"\n"
                    + "echo \"repo=$KNOTLESS_RUN_REPO\"; test -d \"$KNOTLESS_RUN_OUTPUTS\""))
            .withEnv(Map.of("KNOTLESS_RUN_REPO", "alice.example/site"));
    RunResult result =
        new ShellExecutor(work, java.time.Clock.systemUTC(), runnerEnv)
            .run(spec, new RunCancellation());

    assertInstanceOf(RunOutcome.Passed.class, result.outcome(), result.logText());
    assertEquals(
        "==> env\nhome=/home/runner-test\npw=unset\nrepo=alice.example/site\n", result.logText());
  }
}
