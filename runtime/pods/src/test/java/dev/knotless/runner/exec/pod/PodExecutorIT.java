package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.command.InspectContainerResponse;
import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.GitFixture;
import dev.knotless.runner.exec.OutputFilter;
import dev.knotless.runner.exec.OutputsDir;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.mask.SecretMask;
import dev.knotless.runtime.pods.PodCluster;
import dev.knotless.testing.LocalDocker;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
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
 * The pod executor against the mock API server and the test kubelet: what the pod spec holds, what
 * a step can see, and how images, leftovers and lost pods end.
 */
class PodExecutorIT {

  private GitFixture repo;
  private Path work;
  private PodCluster cluster;

  @BeforeEach
  void start() throws Exception {
    Path tmp = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    repo = GitFixture.create(Files.createTempDirectory(tmp, "pod-executor-it-"));
    work = Files.createDirectories(repo.root.resolve("work"));
    cluster = new PodCluster(work, PodCluster.settings().withLimits(1, 1, 2));
  }

  @AfterEach
  void stop() throws Exception {
    try {
      assertEquals(List.of(), pods(), "a run's pod was left");
    } finally {
      cluster.close();
      try (Stream<Path> all = Files.walk(repo.root)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private List<Pod> pods() {
    return cluster.client.pods().inNamespace(PodCluster.NAMESPACE).list().getItems();
  }

  private RunSpec spec(ExecStep... steps) {
    return RunSpec.of(repo.mirror, repo.commit, List.of(steps));
  }

  private static ExecStep step(String name, String script) {
    return ExecStep.run(name, script, Duration.ZERO);
  }

  private static String log(RunResult r) {
    return new String(r.log(), StandardCharsets.UTF_8);
  }

  /** Lets a step waiting for /knotless/go in the one pod there is go on. */
  private void release() throws Exception {
    Pod pod = pods().get(0);
    try (var exec =
        cluster
            .client
            .pods()
            .inNamespace(PodCluster.NAMESPACE)
            .withName(pod.getMetadata().getName())
            .inContainer(RunPod.CONTAINER)
            .redirectingOutput()
            .exec("touch", "/knotless/go")) {
      assertEquals(0, exec.exitCode().get(1, TimeUnit.MINUTES));
    }
  }

  private static String waitForGo() {
    return "while [ ! -f /knotless/go ]; do sleep 0.05; done";
  }

  /** Runs {@code spec} on another thread, returning once its step printed {@code ready}. */
  private CompletableFuture<RunResult> startAndAwaitReady(RunSpec spec) throws Exception {
    CountDownLatch ready = new CountDownLatch(1);
    RunListener listener =
        RunListener.lines(
            line -> {
              if (line.equals("ready")) {
                ready.countDown();
              }
            });
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(() -> cluster.run(spec, new RunCancellation(), listener));
    assertTrue(ready.await(2, TimeUnit.MINUTES), "the step never got ready");
    return run;
  }

  @Test
  void thePodSentHasTheRuntimeClassLimitsNoTokenAndNoSecretAnywhere() throws Exception {
    String secret = "pod-spec-secret-" + Long.toHexString(System.nanoTime());
    RunSpec spec =
        spec(step("wait", "echo ready; " + waitForGo()))
            .withEnv(Map.of("TOKEN", secret))
            .withFilter(OutputFilter.masking(SecretMask.of(List.of(secret))));
    CompletableFuture<RunResult> run = startAndAwaitReady(spec);
    Pod pod = pods().get(0);
    String json = Serialization.asJson(pod);
    InspectContainerResponse container =
        cluster
            .kubelet
            .docker()
            .inspectContainerCmd(
                cluster.kubelet.containerOf(PodCluster.NAMESPACE, pod.getMetadata().getName()))
            .exec();
    release();
    RunResult r = run.get(2, TimeUnit.MINUTES);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    var podSpec = pod.getSpec();
    assertEquals(PodCluster.SANDBOX, podSpec.getRuntimeClassName());
    assertEquals(Boolean.FALSE, podSpec.getAutomountServiceAccountToken());
    assertEquals(Boolean.FALSE, podSpec.getEnableServiceLinks());
    assertTrue(podSpec.getVolumes().stream().allMatch(v -> v.getEmptyDir() != null), json);
    var c = podSpec.getContainers().get(0);
    assertEquals("1000m", c.getResources().getLimits().get("cpu").toString(), json);
    assertEquals("1Gi", c.getResources().getLimits().get("memory").toString(), json);
    assertEquals("2Gi", c.getResources().getLimits().get("ephemeral-storage").toString(), json);
    assertTrue(c.getEnv() == null || c.getEnv().isEmpty(), json);
    assertEquals(Boolean.FALSE, c.getSecurityContext().getAllowPrivilegeEscalation());
    assertEquals(List.of(), c.getSecurityContext().getCapabilities().getAdd(), json);
    assertEquals(
        RunPod.labelValue(cluster.runnerDid),
        pod.getMetadata().getLabels().get(RunPod.RUNNER_LABEL));
    assertEquals(
        cluster.runnerDid, pod.getMetadata().getAnnotations().get(RunPod.RUNNER_ANNOTATION));
    assertFalse(json.contains(secret), "the pod spec holds the secret: " + json);
    assertFalse(json.contains(cluster.token), "the pod spec holds the runner's token: " + json);
    String requests = String.join("\n", cluster.api.requests());
    assertTrue(requests.contains("/exec?"), requests);
    assertFalse(requests.contains(secret), "a request line holds the secret: " + requests);
    // What the kubelet ran: the runtime and limits the pod asked for, and no variable of the run's.
    assertEquals(LocalDocker.SANDBOX_RUNTIME, container.getHostConfig().getRuntime());
    assertEquals(1L << 30, container.getHostConfig().getMemory());
    assertEquals(1_000_000_000L, container.getHostConfig().getNanoCPUs());
    assertFalse(String.join(" ", container.getConfig().getEnv()).contains(secret));
  }

  @Test
  void codeAnOwnerVouchesForRunsUnderTheTrustedRuntimeClass() throws Exception {
    CompletableFuture<RunResult> run =
        startAndAwaitReady(spec(step("wait", "echo ready; " + waitForGo())).withTrustedCode(true));
    String runtime = pods().get(0).getSpec().getRuntimeClassName();
    release();
    RunResult r = run.get(2, TimeUnit.MINUTES);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    assertEquals(PodCluster.TRUSTED, runtime);
  }

  @Test
  void aPodOfTheGvisorClassRunsOnGvisorsKernelAndATrustedPodOnTheHosts() {
    // /proc/version too: under runc dmesg is most often refused, which alone would prove nothing.
    RunSpec spec = spec(step("kernel", "dmesg 2>&1 | head -5; cat /proc/version"));
    RunResult sandboxed = cluster.run(spec, new RunCancellation());
    RunResult trusted = cluster.run(spec.withTrustedCode(true), new RunCancellation());

    assertInstanceOf(RunOutcome.Passed.class, sandboxed.outcome(), log(sandboxed));
    assertTrue(log(sandboxed).contains(LocalDocker.GVISOR_BANNER), log(sandboxed));
    assertInstanceOf(RunOutcome.Passed.class, trusted.outcome(), log(trusted));
    assertFalse(log(trusted).contains(LocalDocker.GVISOR_BANNER), log(trusted));
    String host = System.getProperty("os.version");
    assertTrue(log(trusted).contains("Linux version " + host), host + ": " + log(trusted));
    assertFalse(log(sandboxed).contains("Linux version " + host), log(sandboxed));
  }

  @Test
  void aStepSeesNeitherAnotherRunsSecretNorTheRunnersCredential() throws Exception {
    String mine = "mine-" + Long.toHexString(System.nanoTime());
    String theirs = "theirs-" + Long.toHexString(System.nanoTime());
    RunCancellation stopTheirs = new RunCancellation();
    CountDownLatch theirsReady = new CountDownLatch(1);
    CompletableFuture<RunResult> other =
        CompletableFuture.supplyAsync(
            () ->
                cluster.run(
                    spec(step("theirs", "echo ready; sleep 600")).withEnv(Map.of("KEY", theirs)),
                    stopTheirs,
                    RunListener.lines(
                        line -> {
                          if (line.equals("ready")) {
                            theirsReady.countDown();
                          }
                        })));
    assertTrue(theirsReady.await(2, TimeUnit.MINUTES), "the other run never started its step");
    OutputsDir seen = new OutputsDir();
    RunResult r =
        cluster.run(
            spec(
                    step(
                        "look",
                        "env > \"$KNOTLESS_RUN_OUTPUTS/env\";"
                            + " for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f || true; done"
                            + " > \"$KNOTLESS_RUN_OUTPUTS/environs\" 2>/dev/null;"
                            + " tr '\\0' '\\n' < /proc/1/environ > \"$KNOTLESS_RUN_OUTPUTS/init\";"
                            + " test ! -e /var/run/secrets/kubernetes.io"),
                    step("next", "env > \"$KNOTLESS_RUN_OUTPUTS/next-env\""))
                .withEnv(Map.of("KEY", mine)),
            new RunCancellation(),
            RunListener.NONE,
            seen);
    stopTheirs.cancel("the test is done");
    RunResult their = other.get(2, TimeUnit.MINUTES);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    assertInstanceOf(RunOutcome.Cancelled.class, their.outcome(), log(their));
    assertTrue(seen.get("env").contains("KEY=" + mine), seen.get("env"));
    assertTrue(seen.get("environs").contains("KEY=" + mine), "the step's own environ was read");
    for (String file : List.of("env", "environs", "init", "next-env")) {
      String text = seen.get(file);
      assertFalse(text.contains(theirs), file + " holds another run's secret");
      assertFalse(text.contains(cluster.token), file + " holds the runner's credential");
      assertFalse(text.contains("knotless_"), file + " holds a variable of the launcher's");
    }
    assertTrue(seen.get("init").contains("PATH="), seen.get("init"));
    assertFalse(seen.get("init").contains(mine), "pid 1 holds the run's secret");
  }

  @Test
  void anImageTheKubeletCannotPullFailsTheRunAtOnceNamingTheImage() {
    long t0 = System.nanoTime();
    RunResult r =
        cluster.run(
            spec(step("never", "echo never"))
                .withOption(new dev.knotless.runner.exec.ContainerImage("knotless-test/missing:1")),
            new RunCancellation());
    Duration took = Duration.ofNanos(System.nanoTime() - t0);

    RunOutcome.Errored e = assertInstanceOf(RunOutcome.Errored.class, r.outcome(), log(r));
    assertTrue(
        e.message().startsWith("could not pull image knotless-test/missing:1: ErrImagePull"),
        e.message());
    assertTrue(took.compareTo(Duration.ofSeconds(30)) < 0, "it took " + took);
    assertTrue(log(r).contains("could not pull image knotless-test/missing:1"), log(r));
    assertEquals("not run: " + e.message(), r.steps().get(0).note());
  }

  @Test
  void aRunCancelledWhileItsPodIsStillPendingEndsCancelledAndLeavesNoPod() throws Exception {
    // The image cannot be pulled and the executor waits ten minutes on that, so the pod stays
    // pending until the cancel: a push's next push superseding its run does this.
    PodExecutor patient = cluster.patient(Duration.ofMinutes(10), work);
    RunCancellation cancellation = new RunCancellation();
    CompletableFuture<RunResult> run =
        CompletableFuture.supplyAsync(
            () ->
                patient.run(
                    spec(step("never", "echo never"))
                        .withOption(
                            new dev.knotless.runner.exec.ContainerImage("knotless-test/missing:2")),
                    cancellation));
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (pods().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertEquals(1, pods().size(), "the run's pod was made");
    cancellation.cancel("superseded by a newer push");
    RunResult r = run.get(1, TimeUnit.MINUTES);

    RunOutcome.Cancelled c = assertInstanceOf(RunOutcome.Cancelled.class, r.outcome(), log(r));
    assertEquals("superseded by a newer push", c.reason());
    assertEquals(
        "not run: the run was cancelled: superseded by a newer push", r.steps().get(0).note());
    assertTrue(!log(r).contains("vanished"), log(r));
  }

  @Test
  void aPodThatVanishesMidStepEndsTheRunAsAnError() throws Exception {
    CompletableFuture<RunResult> run =
        startAndAwaitReady(spec(step("wait", "echo ready; sleep 600"), step("next", "echo no")));
    cluster
        .client
        .pods()
        .inNamespace(PodCluster.NAMESPACE)
        .withName(pods().get(0).getMetadata().getName())
        .withGracePeriod(0)
        .delete();
    RunResult r = run.get(2, TimeUnit.MINUTES);

    RunOutcome.Errored e = assertInstanceOf(RunOutcome.Errored.class, r.outcome(), log(r));
    assertTrue(e.message().contains("lost pod knotless-run-"), e.message());
  }

  @Test
  void aNodeLostMidStepEndsTheRunAsAnErrorNotAHang() throws Exception {
    CompletableFuture<RunResult> run =
        startAndAwaitReady(spec(step("wait", "echo ready; sleep 600"), step("next", "echo no")));
    cluster.kubelet.loseNode(PodCluster.NAMESPACE, pods().get(0).getMetadata().getName());
    RunResult r = run.get(2, TimeUnit.MINUTES);

    RunOutcome.Errored e = assertInstanceOf(RunOutcome.Errored.class, r.outcome(), log(r));
    assertTrue(e.message().contains("lost pod knotless-run-"), e.message());
    assertEquals("not run: " + e.message(), r.steps().get(1).note());
  }

  @Test
  void aNodeThatStopsAnsweringMidStepEndsTheRunAsAnErrorAsSoonAsTheWatchSaysSo() throws Exception {
    CompletableFuture<RunResult> run =
        startAndAwaitReady(spec(step("wait", "echo ready; sleep 600"), step("next", "echo no")));
    // Its processes freeze, so the step's output follower neither ends nor fails: only the pod's
    // phase, Unknown, says anything, and only to a watch.
    cluster.kubelet.partitionNode(PodCluster.NAMESPACE, pods().get(0).getMetadata().getName());
    RunResult r = run.get(2, TimeUnit.MINUTES);

    RunOutcome.Errored e = assertInstanceOf(RunOutcome.Errored.class, r.outcome(), log(r));
    assertTrue(
        e.message().contains("lost pod knotless-run-")
            && e.message().contains(": its node stopped answering (phase Unknown, NodeLost)"),
        e.message());
    assertEquals("not run: " + e.message(), r.steps().get(1).note());
  }

  @Test
  void aRunThatWritesBackSeesThePodsCheckoutChangesAndNoLinkIsFollowedOnTheRunnersSide()
      throws Exception {
    java.util.Map<String, String> seen = new java.util.concurrent.ConcurrentHashMap<>();
    dev.knotless.runner.exec.AfterSteps writeBack =
        (checkout, result) -> {
          try {
            seen.put("README", Files.readString(checkout.resolve("README")));
            seen.put("new", Files.readString(checkout.resolve("made/new.sh")));
            seen.put("exec", String.valueOf(Files.isExecutable(checkout.resolve("made/new.sh"))));
            seen.put("link", String.valueOf(Files.isSymbolicLink(checkout.resolve("passwd"))));
            seen.put("gitKept", String.valueOf(Files.exists(checkout.resolve(".git"))));
          } catch (java.io.IOException e) {
            seen.put("error", e.toString());
          }
          return result;
        };
    RunResult r =
        cluster.run(
            spec(
                step(
                    "change",
                    "echo changed > README; mkdir made; printf 'echo hi\\n' > made/new.sh;"
                        + " chmod +x made/new.sh; ln -s /etc/passwd passwd")),
            new RunCancellation(),
            RunListener.NONE,
            writeBack);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    assertEquals("changed\n", seen.get("README"), seen.toString());
    assertEquals("echo hi\n", seen.get("new"), seen.toString());
    assertEquals("true", seen.get("exec"), seen.toString());
    // A link the pod made comes back as a link, never as the runner's file it names.
    assertEquals("true", seen.get("link"), seen.toString());
    assertEquals("true", seen.get("gitKept"), seen.toString());
    assertTrue(pods().isEmpty(), "the pod is deleted once its checkout is back");
  }

  @Test
  void aSweepDeletesTheRunnersLeftoverPodsButNeitherALiveRunsNorAnotherRunnersPod()
      throws Exception {
    Fabric8Support.createPod(cluster, "knotless-run-left", cluster.runnerDid);
    Fabric8Support.createPod(cluster, "knotless-run-other", "did:plc:someoneelse");
    // A pod with this runner's label value whose annotation names another DID: not ours.
    Fabric8Support.createPod(
        cluster, "knotless-run-alike", cluster.runnerDid, cluster.runnerDid.replace(':', '.'));
    CompletableFuture<RunResult> run =
        startAndAwaitReady(spec(step("wait", "echo ready; " + waitForGo())));
    String live =
        pods().stream()
            .map(p -> p.getMetadata().getName())
            .filter(n -> !n.startsWith("knotless-run-left") && !n.startsWith("knotless-run-other"))
            .filter(n -> !n.equals("knotless-run-alike"))
            .findFirst()
            .orElseThrow();
    cluster.removeLeftovers();
    List<String> after = pods().stream().map(p -> p.getMetadata().getName()).sorted().toList();
    Fabric8Support.deletePod(cluster, "knotless-run-other");
    Fabric8Support.deletePod(cluster, "knotless-run-alike");
    try (var exec =
        cluster
            .client
            .pods()
            .inNamespace(PodCluster.NAMESPACE)
            .withName(live)
            .inContainer(RunPod.CONTAINER)
            .redirectingOutput()
            .exec("touch", "/knotless/go")) {
      assertEquals(0, exec.exitCode().get(1, TimeUnit.MINUTES));
    }
    RunResult r = run.get(2, TimeUnit.MINUTES);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    assertEquals(
        List.of("knotless-run-alike", "knotless-run-other", live).stream().sorted().toList(),
        after);
  }
}
