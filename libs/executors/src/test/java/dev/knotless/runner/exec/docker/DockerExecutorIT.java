package dev.knotless.runner.exec.docker;

import static dev.knotless.runner.exec.docker.DockerFixture.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.command.InspectContainerResponse;
import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.OutputFilter;
import dev.knotless.runner.exec.OutputsDir;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.ShellExecutor;
import dev.knotless.runner.exec.StepResult;
import dev.knotless.runner.mask.SecretMask;
import dev.knotless.testing.LocalDocker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The docker executor against the harness's real daemon and local images. */
class DockerExecutorIT {

  private DockerFixture f;
  private DockerExecutor executor;

  @BeforeEach
  void start() throws Exception {
    f = DockerFixture.create();
    executor = f.executor(f.settings());
  }

  @AfterEach
  void nothingOfTheRunIsLeft() throws Exception {
    try {
      assertEquals(List.of(), f.containers(), "a container of the run was left behind");
      try (Stream<Path> left = Files.list(f.work)) {
        assertEquals(List.of(), left.toList(), "the run's directory was not removed");
      }
    } finally {
      executor.close();
      f.close();
    }
  }

  private static String log(RunResult r) {
    return new String(r.log(), StandardCharsets.UTF_8);
  }

  /** What the log's first line says of the runtime: nothing for the daemon's default. */
  private static String under(String runtime) {
    return runtime.equals(DockerFixture.DEFAULT_RUNTIME)
        ? "from " + LocalDocker.BUSYBOX + "\n"
        : "runtime " + runtime;
  }

  private static List<String> statuses(RunResult r) {
    return r.steps().stream().map(s -> s.name() + ":" + s.status() + ":" + s.note()).toList();
  }

  @Test
  void stepsPassFailAndSkipExactlyAsUnderTheShellExecutor() throws Exception {
    RunSpec spec =
        f.spec(
            step("write", "echo made > made.txt; echo wrote"),
            step("read", "cat made.txt; test \"$(cat made.txt)\" = made"),
            step("fail", "echo about to fail; exit 3"),
            step("never", "echo never"));
    RunResult docker = executor.run(spec, new RunCancellation());
    RunResult shell = new ShellExecutor(f.work).run(spec, new RunCancellation());

    assertEquals(statuses(shell), statuses(docker));
    assertInstanceOf(RunOutcome.Failed.class, docker.outcome());
    assertEquals(
        List.of(0, 0, 3), docker.steps().stream().limit(3).map(StepResult::exitCode).toList());
    String log = log(docker);
    assertTrue(log.contains("==> read\nmade\n"), log);
    assertTrue(log.contains("exited with 3\n==> never\nskipped: step \"fail\" failed"), log);
    assertTrue(log.contains("container "), "the log names the container: " + log);
  }

  @Test
  void aStepFindsWhatEarlierStepsLeftInstalledToolsIncluded() {
    RunResult r =
        executor.run(
            f.spec(
                step(
                    "install",
                    "printf '#!/bin/sh\\necho tool says $1\\n' > /usr/local/bin/tool;"
                        + " chmod +x /usr/local/bin/tool"),
                // Renamed into place, so the last step never reads it half-written.
                step(
                    "serve",
                    "(while :; do date > /tmp/beat.new; mv /tmp/beat.new /tmp/beat; sleep 0.1;"
                        + " done) &"),
                step("use", "tool hello; sleep 0.3; test -s /tmp/beat")),
            new RunCancellation());
    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    assertTrue(log(r).contains("tool says hello"), log(r));
  }

  @EachRuntime
  void gitWorksInsideTheContainerAndOutputsComeBack(String runtime) throws Exception {
    OutputsDir seen = new OutputsDir();
    RunResult r;
    try (DockerExecutor executor = f.executor(f.settings(runtime))) {
      r =
          executor.run(
              f.spec(
                      step(
                          "git",
                          "git log --format=%H -1 > \"$KNOTLESS_RUN_OUTPUTS/head.txt\";"
                              + " printf PNG > \"$KNOTLESS_RUN_OUTPUTS/shot.png\";"
                              + " test ! -e .git/objects/info/alternates;"
                              + " echo change >> README;"
                              + " git -c user.name=t -c user.email=t@t commit -qam change;"
                              + " git log --oneline | wc -l"))
                  .withOption(new dev.knotless.runner.exec.ContainerImage(LocalDocker.GIT)),
              new RunCancellation(),
              RunListener.NONE,
              seen);
    }
    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    assertEquals(1, r.outputs().size());
    assertEquals("shot.png", r.outputs().get(0).name());
    assertEquals(f.repo.commit + "\n", seen.get("head.txt"));
    assertTrue(log(r).contains("==> git\n2\n"), log(r));
  }

  @EachRuntime
  void secretsReachTheStepButNeitherTheContainerNorItsInit(String runtime) throws Exception {
    String secret = "s3cret-" + Long.toHexString(System.nanoTime());
    RunSpec spec =
        f.spec(
                step(
                    "look",
                    "test \"$TOKEN\" = \"$EXPECTED\"; echo token is $TOKEN;"
                        + " tr '\\0' '\\n' < /proc/1/environ > \"$KNOTLESS_RUN_OUTPUTS/init.txt\";"
                        + " ps -o pid,args > \"$KNOTLESS_RUN_OUTPUTS/ps.txt\"; "
                        + DockerFixture.waitFor("go")))
            .withEnv(Map.of("TOKEN", secret, "EXPECTED", secret, "PLAIN", "visible"))
            .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret))));
    OutputsDir seenByStep = new OutputsDir();
    DockerExecutor executor = f.executor(f.settings(runtime));
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(
            () -> executor.run(spec, new RunCancellation(), RunListener.NONE, seenByStep));
    InspectContainerResponse c = f.awaitContainer();
    String seen =
        String.join(
                "\n", c.getConfig().getEnv() == null ? List.of() : List.of(c.getConfig().getEnv()))
            + String.join(" ", c.getArgs())
            + c.getPath()
            + c.getConfig().getLabels()
            + String.join(" ", c.getConfig().getEntrypoint())
            + c.getHostConfig().getBinds().length;
    f.release("go");
    RunResult r = run.get(2, TimeUnit.MINUTES);
    executor.close();

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    assertTrue(log(r).contains(under(runtime)), log(r));
    assertFalse(seen.contains(secret), "docker inspect shows the secret: " + seen);
    assertFalse(seen.contains("visible"), "docker inspect shows a run variable: " + seen);
    assertTrue(log(r).contains("token is ***"), log(r));
    assertFalse(log(r).contains(secret));
    seenByStep
        .all()
        .forEach(
            (name, text) ->
                assertFalse(text.contains(secret), name + " holds the secret: " + text));
    String init = seenByStep.get("init.txt");
    assertTrue(init.contains("PATH="), "init's environment was read: " + init);
    assertFalse(init.contains("KNOTLESS_RUN"), init);
  }

  @EachRuntime
  void aTimeoutEndsAStepThatIgnoresTermAndForksASleeperAndTheContainerGoes(String runtime)
      throws Exception {
    RunResult r;
    try (DockerExecutor executor = f.executor(f.settings(runtime))) {
      r =
          executor.run(
              f.spec(
                  ExecStep.run(
                      "stubborn",
                      "trap '' TERM; (trap '' TERM; sleep 600) & echo forked; sleep 600",
                      Duration.ofSeconds(2)),
                  step("after", "echo never")),
              new RunCancellation());
    }
    assertInstanceOf(RunOutcome.Failed.class, r.outcome());
    assertTrue(log(r).contains(under(runtime)), log(r));
    assertEquals("killed after 2s, the step's time limit", r.steps().get(0).note());
    assertEquals("skipped: step \"stubborn\" failed", r.steps().get(1).note());
    // The container's absence is checked after each test.
  }

  @EachRuntime
  void aCancelEndsTheRunningStepAtOnce(String runtime) throws Exception {
    RunCancellation cancellation = new RunCancellation();
    CountDownLatch started = new CountDownLatch(1);
    RunListener listener =
        RunListener.lines(
            line -> {
              if (line.equals("forked")) {
                started.countDown();
              }
            });
    DockerExecutor executor = f.executor(f.settings(runtime));
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(
            () ->
                executor.run(
                    f.spec(
                        step("stubborn", "trap '' TERM; sleep 600 & echo forked; sleep 600"),
                        step("after", "echo never")),
                    cancellation,
                    listener));
    assertTrue(started.await(60, TimeUnit.SECONDS), "the step never printed");
    long asked = System.nanoTime();
    cancellation.cancel("a newer commit");
    RunResult r = run.get(60, TimeUnit.SECONDS);
    long tookMs = (System.nanoTime() - asked) / 1_000_000;
    executor.close();
    assertInstanceOf(RunOutcome.Cancelled.class, r.outcome());
    assertTrue(log(r).contains(under(runtime)), log(r));
    assertEquals("cancelled: a newer commit", r.steps().get(0).note());
    assertTrue(tookMs < 20_000, "the cancel took " + tookMs + " ms");
  }

  @Test
  void anImageThatDoesNotExistMakesAnErrorNamingIt() {
    RunResult r =
        executor.run(
            f.spec(step("a", "true"))
                .withOption(
                    new dev.knotless.runner.exec.ContainerImage("knotless-test/no-such-image:1")),
            new RunCancellation());
    RunOutcome.Errored e = assertInstanceOf(RunOutcome.Errored.class, r.outcome());
    assertTrue(e.message().contains("knotless-test/no-such-image:1"), e.message());
    assertTrue(log(r).contains("pulling knotless-test/no-such-image:1"), log(r));
    assertTrue(r.steps().get(0).note().startsWith("not run: "), r.steps().get(0).note());
  }

  @Test
  void aDaemonThatDoesNotAnswerMakesAnErrorNamingWhereItWasLookedFor() throws Exception {
    String nowhere = "unix://" + f.work.resolve("no-daemon.sock");
    try (DockerExecutor down = f.executor(f.settings().withDockerHost(nowhere))) {
      RunResult r = down.run(f.spec(step("a", "true")), new RunCancellation());
      RunOutcome.Errored e = assertInstanceOf(RunOutcome.Errored.class, r.outcome());
      assertTrue(
          e.message().contains("could not reach the docker daemon at " + nowhere), e.message());
    }
  }

  @Test
  void leftoversOfThisRunnerGoButALiveRunsContainerStays() throws Exception {
    String leftover =
        f.docker
            .createContainerCmd(LocalDocker.BUSYBOX)
            .withLabels(Labels.container(f.runnerDid, "run-left-by-a-crash"))
            .withEntrypoint("sleep", "600")
            .exec()
            .getId();
    f.docker.startContainerCmd(leftover).exec();
    String stranger =
        f.docker
            .createContainerCmd(LocalDocker.BUSYBOX)
            .withLabels(Map.of(Labels.RUNNER, "did:plc:someone-else"))
            .withEntrypoint("sleep", "600")
            .exec()
            .getId();
    try {
      CompletableFuture<RunResult> run =
          CompletableFuture.supplyAsync(
              () ->
                  executor.run(
                      f.spec(step("wait", DockerFixture.waitFor("go"))), new RunCancellation()));
      String live = null;
      while (live == null) {
        live =
            f.containers().stream()
                .map(c -> c.getId())
                .filter(id -> !id.equals(leftover))
                .findFirst()
                .orElse(null);
        Thread.sleep(50);
      }
      executor.removeLeftovers();
      List<String> after = f.containers().stream().map(c -> c.getId()).toList();
      assertEquals(List.of(live), after, "the leftover should go and the live run's stay");
      f.release("go");
      assertInstanceOf(RunOutcome.Passed.class, run.get(60, TimeUnit.SECONDS).outcome());
      assertEquals(
          1,
          f.docker
              .listContainersCmd()
              .withShowAll(true)
              .withIdFilter(List.of(stranger))
              .exec()
              .size(),
          "another runner's container was touched");
    } finally {
      f.docker.removeContainerCmd(stranger).withForce(true).exec();
    }
  }

  @Test
  void theRunnersOwnEnvironmentNeverReachesAStep() {
    OutputsDir seen = new OutputsDir();
    executor.run(
        f.spec(step("env", "env | sort > \"$KNOTLESS_RUN_OUTPUTS/env.txt\"")),
        new RunCancellation(),
        RunListener.NONE,
        seen);
    String env = seen.get("env.txt");
    // The test JVM's own variables (its HOME, its JAVA_HOME) are the runner's here.
    String home = System.getenv("HOME");
    assertTrue(env.contains("KNOTLESS_RUN_OUTPUTS=/knotless/outputs"), env);
    assertTrue(env.contains("HOME=/root"), "the image's HOME: " + env);
    assertTrue(env.contains("PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin\n"), env);
    if (home != null && !home.equals("/root")) {
      assertFalse(env.contains("HOME=" + home + "\n"), env);
    }
    assertFalse(env.contains("JAVA_HOME"), env);
    assertFalse(env.contains("MAVEN"), env);
  }

  @Test
  void aDaemonLostMidRunEndsTheRunAsAnErrorNamingItAndTheNextSweepRemovesTheContainer()
      throws Exception {
    Path socket = f.repo.root.resolve("proxy.sock");
    try (SocketProxy proxy = SocketProxy.start(socket, Path.of("/var/run/docker.sock"));
        DockerExecutor through = f.executor(f.settings().withDockerHost("unix://" + socket))) {
      CountDownLatch started = new CountDownLatch(1);
      RunListener listener =
          RunListener.lines(
              line -> {
                if (line.equals("started")) {
                  started.countDown();
                }
              });
      CompletableFuture<RunResult> run =
          CompletableFuture.supplyAsync(
              () ->
                  through.run(
                      f.spec(step("long", "echo started; sleep 600"), step("after", "true")),
                      new RunCancellation(),
                      listener));
      assertTrue(started.await(60, TimeUnit.SECONDS), "the step never printed");
      proxy.cut();
      RunResult r = run.get(2, TimeUnit.MINUTES);
      RunOutcome.Errored e = assertInstanceOf(RunOutcome.Errored.class, r.outcome(), log(r));
      assertTrue(
          e.message().contains("could not reach the docker daemon at unix://" + socket),
          e.message());
      assertEquals(
          1, f.containers().size(), "the daemon was out of reach, so its container stayed");
    }
    executor.removeLeftovers();
  }

  @Test
  void aStepThatOverwritesEveryObjectInItsCheckoutLeavesTheMirrorWhole() throws Exception {
    RunResult r =
        executor.run(
            f.spec(
                step(
                    "vandal",
                    "n=0; for o in $(find .git/objects -type f); do chmod u+w $o;"
                        + " echo garbage > $o; n=$((n+1)); done; echo overwrote $n; test $n -gt 0")),
            new RunCancellation());
    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    String fsck =
        dev.knotless.runner.exec.GitFixture.git(f.repo.mirror, "fsck", "--full", "--strict");
    assertFalse(fsck.contains("error"), fsck);
    assertEquals(
        f.repo.commit + "\n",
        dev.knotless.runner.exec.GitFixture.git(f.repo.mirror, "rev-parse", "HEAD"));
  }
}
