package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.GitFixture;
import dev.knotless.runner.exec.RunCancellation;
import dev.knotless.runner.exec.RunListener;
import dev.knotless.runner.exec.RunOutcome;
import dev.knotless.runner.exec.RunResult;
import dev.knotless.runner.exec.RunSpec;
import dev.knotless.runner.exec.cache.CacheRequest;
import dev.knotless.runner.exec.cache.CacheStore;
import dev.knotless.runner.exec.cache.CacheUse;
import dev.knotless.runtime.pods.Fabric8PodApi;
import dev.knotless.runtime.pods.PodCluster;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
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
 * Caches kept on the node ({@link PodExecutor#keepCachesOnNode}): each run's overlays mounted on
 * this machine (the test kubelet's node) before its pod is made and given to it as hostPath
 * volumes, which the kubelet binds into the container under runsc. Root, real overlayfs.
 */
class PodNodeCachesIT {

  private GitFixture repo;
  private Path work;
  private PodCluster cluster;
  private Path cacheDir;
  private PodExecutor executor;

  @BeforeEach
  void start() throws Exception {
    Path tmp = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    repo = GitFixture.create(Files.createTempDirectory(tmp, "pod-node-caches-it-"));
    work = Files.createDirectories(repo.root.resolve("work"));
    cluster = new PodCluster(work, PodCluster.settings());
    cacheDir = repo.root.resolve("caches");
    executor = onNode(cluster.cached(store(), null, work));
  }

  private CacheStore store() throws IOException {
    return new CacheStore(cacheDir, CacheStore.DEFAULT_MAX_BYTES);
  }

  private static PodExecutor onNode(PodExecutor e) {
    e.keepCachesOnNode(null);
    return e;
  }

  @AfterEach
  void nothingIsLeft() throws Exception {
    try {
      assertEquals(List.of(), pods(), "a run's pod was left");
      assertEquals(List.of(), CacheMounts.under(cacheDir), "an overlay was left mounted");
      try (Stream<Path> runs = Files.list(cacheDir.resolve("runs"))) {
        assertEquals(List.of(), runs.toList(), "a run's layers were left");
      }
      try (Stream<Path> all = Files.walk(cacheDir.resolve("bases"))) {
        assertEquals(
            List.of(),
            all.filter(p -> p.getFileName().toString().endsWith(".making")).toList(),
            "a half-made base was left");
      }
    } finally {
      CacheMounts.clear(cacheDir, cluster, repo.root);
    }
  }

  private List<Pod> pods() {
    return cluster.client.pods().inNamespace(PodCluster.NAMESPACE).list().getItems();
  }

  private RunSpec spec(CacheUse use, String script) {
    return RunSpec.of(
            repo.mirror, repo.commit, List.of(ExecStep.run("build", script, Duration.ZERO)))
        .withOption(new CacheRequest("alice.example.com/site", "ci", List.of("/cache"), use));
  }

  private String passes(CacheUse use, String script) {
    return passes(executor.run(spec(use, script), new RunCancellation()));
  }

  private static String passes(RunResult r) {
    String log = new String(r.log(), StandardCharsets.UTF_8);
    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log);
    return log;
  }

  @Test
  void theRunWritesIntoAVolumeOfTheNodeAndOnlyAPassingPushPromotesIt() {
    String first =
        passes(
            CacheUse.PROMOTE_ON_PASS,
            "test ! -e /cache/stamp && echo started-cold; echo v1 > /cache/stamp;"
                + " echo old > /cache/old");
    assertTrue(first.contains("cache /cache: a volume of the node, nothing copied"), first);
    assertFalse(first.contains("copied".concat(" into")), first);
    assertTrue(first.contains("started-cold\n"), first);
    assertTrue(first.contains("cache /cache: promoted"), first);

    String second =
        passes(CacheUse.PROMOTE_ON_PASS, "cat /cache/stamp; rm /cache/old; echo v2 > /cache/stamp");
    assertTrue(second.contains("v1\n"), "the pod started from the base: " + second);
    assertTrue(second.contains("cache /cache: promoted, 3 bytes written by this run kept"), second);

    String pull = passes(CacheUse.READ, "cat /cache/stamp; echo pull > /cache/stamp");
    assertTrue(pull.contains("v2\n"), pull);
    assertFalse(pull.contains("promoted"), pull);
    String apart = passes(CacheUse.APART, "test ! -e /cache/stamp && echo apart-empty");
    assertTrue(apart.contains("apart-empty\n"), apart);
    RunResult failing =
        executor.run(
            spec(CacheUse.PROMOTE_ON_PASS, "echo bad > /cache/stamp; exit 1"),
            new RunCancellation());
    assertInstanceOf(RunOutcome.Failed.class, failing.outcome());

    String after = passes(CacheUse.READ, "cat /cache/stamp; test ! -e /cache/old && echo old-gone");
    assertTrue(after.contains("v2\nold-gone\n"), "the push's base, deletion kept: " + after);
  }

  @Test
  void aBaseGoneFromTheNodeStartsTheRunColdAndTheNextPassingPushWritesANewOne() throws Exception {
    passes(CacheUse.PROMOTE_ON_PASS, "echo v1 > /cache/stamp");
    // Between runs every generation goes from the node's disk; the pointers stay.
    try (Stream<Path> bases = Files.list(cacheDir.resolve("bases"))) {
      for (Path base : bases.toList()) {
        try (Stream<Path> all = Files.walk(base)) {
          for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
            if (!p.equals(base) && !p.getFileName().toString().equals("current")) {
              Files.delete(p);
            }
          }
        }
      }
    }
    String cold =
        passes(
            CacheUse.PROMOTE_ON_PASS,
            "test ! -e /cache/stamp && echo cold; echo v2 > /cache/stamp");
    assertTrue(
        cold.contains(
            "cache /cache: its base was gone from the runner's disk, so this run starts cold"),
        cold);
    assertTrue(cold.contains("cold\n"), cold);
    assertTrue(cold.contains("cache /cache: promoted"), cold);
    assertTrue(passes(CacheUse.READ, "cat /cache/stamp").contains("v2\n"));
  }

  @Test
  void aRunnerKilledMidStepLeavesItsPodToTheNextWhichEndsItAndLeavesNothingMounted()
      throws Exception {
    passes(CacheUse.PROMOTE_ON_PASS, "echo v1 > /cache/stamp");
    RunSpec spec =
        spec(
                CacheUse.PROMOTE_ON_PASS,
                "cat /cache/stamp; echo ready; while [ ! -f /knotless/go ]; do sleep 0.05; done;"
                    + " echo v2 > /cache/stamp; cat /cache/stamp")
            .withOption(new RunKey("node-cache-key"));
    KubernetesClient firstClient = cluster.api.client(PodCluster.NAMESPACE, cluster.token);
    DyingPodApi dying =
        new DyingPodApi(
            new Fabric8PodApi(firstClient, PodCluster.NAMESPACE, Duration.ZERO), c -> false, true);
    PodExecutor first =
        onNode(
            new PodExecutor(
                dying,
                PodCluster.settings(),
                cluster.runnerDid,
                Files.createDirectories(work.resolve("a")),
                Clock.systemUTC(),
                store(),
                null));
    CountDownLatch ready = new CountDownLatch(1);
    Thread killed =
        new Thread(
            () ->
                first.run(
                    spec,
                    new RunCancellation(),
                    RunListener.lines(
                        line -> {
                          if (line.equals("ready")) {
                            // The process is killed here: it never calls anything again.
                            dying.die();
                            ready.countDown();
                          }
                        })));
    killed.setDaemon(true);
    killed.start();
    assertTrue(ready.await(2, TimeUnit.MINUTES), "the step never got ready");
    List<Pod> left = pods();
    assertEquals(1, left.size(), "the killed scheduler's pod stays");
    String name = left.get(0).getMetadata().getName();
    assertEquals(
        1, CacheMounts.under(cacheDir).size(), "the killed run's overlay is still mounted");

    // The scheduler starts again on the node: a new executor and store over the same directory.
    PodExecutor restarted = onNode(cluster.cached(store(), null, work));
    restarted.adopt(Map.of("node-cache-key", name));
    restarted.removeLeftovers();
    assertEquals(1, CacheMounts.under(cacheDir).size(), "the adopted pod's overlay is spared");
    CountDownLatch following = new CountDownLatch(1);
    var adopted =
        CompletableFuture.supplyAsync(
            () ->
                restarted.run(
                    spec,
                    new RunCancellation(),
                    RunListener.lines(
                        line -> {
                          if (line.equals("ready")) {
                            following.countDown();
                          }
                        })));
    assertTrue(following.await(2, TimeUnit.MINUTES), "the adopter never followed the step");
    // A sweep while the adopted run goes (the scheduler sweeps every few seconds) spares it too.
    restarted.removeLeftovers();
    assertEquals(1, CacheMounts.under(cacheDir).size(), "the adopted run's overlay is spared");
    try (var exec =
        cluster
            .client
            .pods()
            .inNamespace(PodCluster.NAMESPACE)
            .withName(name)
            .inContainer(RunPod.CONTAINER)
            .redirectingOutput()
            .exec("touch", "/knotless/go")) {
      assertEquals(0, exec.exitCode().get(1, TimeUnit.MINUTES));
    }
    String r = passes(adopted.get(2, TimeUnit.MINUTES));
    assertTrue(r.contains("v1\n"), r);
    assertTrue(r.contains("v2\n"), "the step wrote into its volume after the adoption: " + r);
    assertTrue(
        r.contains(
            "cache /cache: this pod was adopted, its volume the overlay of the runner that made"
                + " it; what the run writes there is not kept"),
        r);
    assertFalse(r.contains("promoted"), r);
    assertEquals(
        List.of(), CacheMounts.under(cacheDir), "the adopter unmounted the killed run's overlay");

    String after =
        passes(restarted.run(spec(CacheUse.READ, "cat /cache/stamp"), new RunCancellation()));
    assertTrue(after.contains("v1\n"), "the adopted run promoted nothing: " + after);
    executor = restarted;
  }
}
