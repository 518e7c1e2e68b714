package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.GitFixture;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runtime.pods.Fabric8PodApi;
import dev.knotless.runtime.pods.PodCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
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
 * A runner that stops mid-run leaves its pod running; another, told which run the pod holds, adopts
 * it: the step that was running is followed rather than started again, and the run's log holds
 * every line once.
 */
class PodAdoptionIT {

  private GitFixture repo;
  private Path work;
  private PodCluster cluster;

  @BeforeEach
  void start() throws Exception {
    Path tmp = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    repo = GitFixture.create(Files.createTempDirectory(tmp, "pod-adoption-it-"));
    work = Files.createDirectories(repo.root.resolve("work"));
    cluster = new PodCluster(work, PodCluster.settings());
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

  @Test
  void aPodLeftByARunnerThatStoppedIsFollowedToItsEndAndNoStepRunsTwice() throws Exception {
    // Each step appends to a file in the pod: a step run twice would show in the last step.
    RunSpec spec =
        RunSpec.of(
                repo.mirror,
                repo.commit,
                List.of(
                    ExecStep.run("first", "echo one >> /knotless/ran; echo first", Duration.ZERO),
                    ExecStep.run(
                        "slow",
                        "echo two >> /knotless/ran; echo ready; "
                            + "while [ ! -f /knotless/go ]; do sleep 0.05; done; echo after",
                        Duration.ZERO),
                    ExecStep.run("last", "cat /knotless/ran", Duration.ZERO)))
            .withOption(new RunKey("check-key-1"));

    KubernetesClient firstClient = cluster.api.client(PodCluster.NAMESPACE, cluster.token);
    PodExecutor first =
        cluster.another(
            firstClient, PodCluster.settings(), Files.createDirectories(work.resolve("a")));
    CountDownLatch ready = new CountDownLatch(1);
    RunListener listener =
        RunListener.lines(
            line -> {
              if (line.equals("ready")) {
                ready.countDown();
              }
            });
    CompletableFuture<RunResult> dying =
        CompletableFuture.supplyAsync(() -> first.run(spec, new RunCancellation(), listener));
    assertTrue(ready.await(2, TimeUnit.MINUTES), "the slow step never got ready");
    // The first runner's process dies: it can no longer reach the API server at all.
    // How the dead runner's thread ends is not the point (it can reach nothing); its pod is.
    firstClient.close();
    dying.cancel(true);
    List<Pod> left = pods();
    assertEquals(1, left.size(), "the dead runner's pod stays");
    Pod pod = left.get(0);
    assertEquals("check-key-1", pod.getMetadata().getAnnotations().get(RunPod.RUN_KEY_ANNOTATION));

    // A sweep of the new runner spares the pod it is about to adopt.
    cluster.executor().adopt(Map.of("check-key-1", pod.getMetadata().getName()));
    cluster.removeLeftovers();
    assertEquals(1, pods().size(), "the sweep deleted a pod offered for adoption");

    CompletableFuture<RunResult> adopted =
        CompletableFuture.supplyAsync(() -> cluster.run(spec, new RunCancellation()));
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
    RunResult r = adopted.get(2, TimeUnit.MINUTES);
    String log = new String(r.log(), StandardCharsets.UTF_8);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log);
    assertTrue(log.contains("first\n"), log);
    assertTrue(log.contains("ready\n") && log.contains("after\n"), log);
    assertEquals(1, count(log, "ready\n"), log);
    assertTrue(log.contains("one\ntwo\n"), log);
    assertEquals(1, count(log, "two\n"), "a step ran twice:\n" + log);
  }

  @Test
  void aPodWhoseRunnerStoppedBeforeItsCheckoutWasWholeGetsTheCheckoutFromItsAdopter()
      throws Exception {
    RunSpec spec =
        RunSpec.of(
                repo.mirror,
                repo.commit,
                List.of(
                    ExecStep.run("read", "cat README; echo ran >> /knotless/ran", Duration.ZERO)))
            .withOption(new RunKey("check-key-2"));
    // The first runner dies as it starts to unpack the checkout: nothing of it reaches the API
    // server after that, its pod's deletion included.
    KubernetesClient firstClient = cluster.api.client(PodCluster.NAMESPACE, cluster.token);
    PodApi dying =
        new DyingPodApi(
            new Fabric8PodApi(firstClient, PodCluster.NAMESPACE, Duration.ZERO),
            // A pod made afresh gets its checkout with the first step's launch, in one exec.
            command ->
                command.equals(Launcher.unpackCommand())
                    || (command.size() > 3 && command.get(3).equals("knotless-unpack-launch")));
    PodExecutor first =
        new PodExecutor(
            dying,
            PodCluster.settings(),
            cluster.runnerDid,
            Files.createDirectories(work.resolve("b")),
            java.time.Clock.systemUTC());
    RunResult died = first.run(spec, new RunCancellation());
    assertInstanceOf(RunOutcome.Errored.class, died.outcome());
    firstClient.close();
    List<Pod> left = pods();
    assertEquals(1, left.size(), "the dead runner's pod stays");

    cluster.executor().adopt(Map.of("check-key-2", left.get(0).getMetadata().getName()));
    RunResult r = cluster.run(spec, new RunCancellation());
    String log = new String(r.log(), StandardCharsets.UTF_8);

    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log);
    assertTrue(log.contains("hello from the repository\n"), "the step saw the checkout: " + log);
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }
}
