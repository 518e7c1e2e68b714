package dev.knotless.runner.exec.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.exec.ExecStep;
import dev.knotless.runner.exec.GitFixture;
import dev.knotless.runner.exec.RunCancellation;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Caches under the pod executor, against the mock API server and the test kubelet running pods as
 * docker containers, with real overlayfs mounts on the runner's side (as root): a pod starts from
 * the base its cache's last passing push made, and nothing else ever writes one.
 */
class PodCachesIT {

  private GitFixture repo;
  private Path work;
  private PodCluster cluster;
  private Path cacheDir;
  private PodExecutor executor;

  @BeforeEach
  void start() throws Exception {
    Path tmp = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    repo = GitFixture.create(Files.createTempDirectory(tmp, "pod-caches-it-"));
    work = Files.createDirectories(repo.root.resolve("work"));
    cluster = new PodCluster(work, PodCluster.settings());
    cacheDir = repo.root.resolve("caches");
    executor = cluster.cached(new CacheStore(cacheDir, CacheStore.DEFAULT_MAX_BYTES), null, work);
  }

  @AfterEach
  void nothingIsLeft() throws Exception {
    try {
      assertEquals(List.of(), pods(), "a run's pod was left");
      assertEquals(List.of(), CacheMounts.under(cacheDir), "an overlay was left mounted");
      try (Stream<Path> runs = Files.list(cacheDir.resolve("runs"))) {
        assertEquals(List.of(), runs.toList(), "a run's layers were left");
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
        .withOption(
            new CacheRequest(
                "alice.example.com/site", "ci", List.of("node_modules", "/cache"), use));
  }

  private RunResult run(CacheUse use, String script) {
    return executor.run(spec(use, script), new RunCancellation());
  }

  private static String log(RunResult r) {
    return new String(r.log(), StandardCharsets.UTF_8);
  }

  private static String passes(RunResult r) {
    assertInstanceOf(RunOutcome.Passed.class, r.outcome(), log(r));
    return log(r);
  }

  @Test
  void aPassingPushPromotesWhatItWroteAndTheNextPodStartsFromIt() {
    String first =
        passes(
            run(
                CacheUse.PROMOTE_ON_PASS,
                "test ! -e /cache/stamp && echo started-cold; mkdir -p node_modules/pkg;"
                    + " echo one > node_modules/pkg/a.js; echo v1 > /cache/stamp;"
                    + " echo old > /cache/old"));
    assertTrue(first.contains("started-cold\n"), first);
    assertTrue(first.contains("cache /cache: promoted"), first);
    assertTrue(first.contains("cache /work/node_modules: promoted"), first);

    String second =
        passes(
            run(
                CacheUse.PROMOTE_ON_PASS,
                "cat /cache/stamp node_modules/pkg/a.js; rm /cache/old; echo v2 > /cache/stamp"));
    assertTrue(second.contains("v1\none\n"), "the pod started from the base: " + second);
    // Only what changed came back: the stamp's 3 bytes, the removal, and no untouched file.
    assertTrue(second.contains("cache /cache: promoted, 3 bytes written by this run kept"), second);
    assertTrue(
        second.contains("cache /work/node_modules: nothing written, the base stays"), second);

    String third =
        passes(
            run(
                CacheUse.READ,
                "cat /cache/stamp; test ! -e /cache/old && echo old-gone; ls node_modules/pkg"));
    assertTrue(third.contains("v2\nold-gone\na.js\n"), third);
  }

  @Test
  void anUntrustedPullReadsTheBaseButNeverWritesIt() {
    passes(run(CacheUse.PROMOTE_ON_PASS, "echo v1 > /cache/stamp"));

    String pull =
        passes(
            run(CacheUse.READ, "cat /cache/stamp; echo pull > /cache/stamp; echo x > /cache/new"));
    assertTrue(pull.contains("v1\n"), "the pull read the base: " + pull);
    assertFalse(pull.contains("promoted"), pull);

    String apart = passes(run(CacheUse.APART, "test ! -e /cache/stamp && echo apart-empty"));
    assertTrue(apart.contains("read apart, empty"), apart);
    assertTrue(apart.contains("apart-empty\n"), apart);

    RunResult failing = run(CacheUse.PROMOTE_ON_PASS, "echo bad > /cache/stamp; exit 1");
    assertInstanceOf(RunOutcome.Failed.class, failing.outcome(), log(failing));
    assertFalse(log(failing).contains("promoted"), log(failing));

    String after =
        passes(run(CacheUse.READ, "cat /cache/stamp; test ! -e /cache/new && echo no-new"));
    assertTrue(after.contains("v1\nno-new\n"), "the base is the push's still: " + after);
  }

  @Test
  void aBaseGoneFromTheRunnersDiskStartsTheRunColdWithALogLine() throws Exception {
    passes(run(CacheUse.PROMOTE_ON_PASS, "echo v1 > /cache/stamp"));
    // Every generation goes from disk, the pointers to them stay: a volume emptied by hand.
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

    String cold = passes(run(CacheUse.READ, "test ! -e /cache/stamp && echo cold"));
    assertTrue(
        cold.contains(
            "cache /cache: its base was gone from the runner's disk, so this run starts cold"),
        cold);
    assertTrue(cold.contains("cold\n"), cold);

    passes(run(CacheUse.PROMOTE_ON_PASS, "echo v2 > /cache/stamp"));
    assertTrue(passes(run(CacheUse.READ, "cat /cache/stamp")).contains("v2\n"));
  }

  @Test
  void aSchedulerThatStopsAsItsPodRestoresACacheLeavesThePodToTheNextWhichRestoresIt()
      throws Exception {
    passes(run(CacheUse.PROMOTE_ON_PASS, "echo v1 > /cache/stamp"));
    RunSpec spec =
        spec(CacheUse.PROMOTE_ON_PASS, "cat /cache/stamp; echo v2 > /cache/stamp")
            .withOption(new RunKey("cache-key-1"));

    // The first scheduler dies as it starts to copy the cache in: nothing of it reaches the API
    // server after that, its pod's deletion included.
    KubernetesClient firstClient = cluster.api.client(PodCluster.NAMESPACE, cluster.token);
    PodApi dying =
        new DyingPodApi(
            new Fabric8PodApi(firstClient, PodCluster.NAMESPACE, Duration.ZERO),
            command -> command.size() > 2 && command.get(2).equals(CopyScripts.CACHE_IN));
    PodExecutor first =
        new PodExecutor(
            dying,
            PodCluster.settings(),
            cluster.runnerDid,
            Files.createDirectories(work.resolve("b")),
            Clock.systemUTC(),
            new CacheStore(cacheDir, CacheStore.DEFAULT_MAX_BYTES),
            null);
    RunResult died = first.run(spec, new RunCancellation());
    assertInstanceOf(RunOutcome.Errored.class, died.outcome(), log(died));
    firstClient.close();
    List<Pod> left = pods();
    assertEquals(1, left.size(), "the dead scheduler's pod stays");

    // The scheduler starts again: a new executor and store over the same volume.
    PodExecutor restarted =
        cluster.cached(new CacheStore(cacheDir, CacheStore.DEFAULT_MAX_BYTES), null, work);
    restarted.adopt(Map.of("cache-key-1", left.get(0).getMetadata().getName()));
    restarted.removeLeftovers();
    String r = passes(restarted.run(spec, new RunCancellation()));
    assertTrue(r.contains("v1\n"), "the adopter copied the base in before the step: " + r);
    assertTrue(r.contains("cache /cache: promoted"), r);

    String after =
        passes(restarted.run(spec(CacheUse.READ, "cat /cache/stamp"), new RunCancellation()));
    assertTrue(after.contains("v2\n"), after);
  }

  @Test
  void aPodAdoptedAfterItsStepsBeganKeepsNothingOfItsCachesAndSaysSo() throws Exception {
    passes(run(CacheUse.PROMOTE_ON_PASS, "echo v1 > /cache/stamp"));
    RunSpec spec =
        spec(
                CacheUse.PROMOTE_ON_PASS,
                "cat /cache/stamp; echo ready; while [ ! -f /knotless/go ]; do sleep 0.05; done;"
                    + " echo v2 > /cache/stamp")
            .withOption(new RunKey("cache-key-2"));
    KubernetesClient firstClient = cluster.api.client(PodCluster.NAMESPACE, cluster.token);
    PodExecutor first =
        new PodExecutor(
            new Fabric8PodApi(firstClient, PodCluster.NAMESPACE, Duration.ZERO),
            PodCluster.settings(),
            cluster.runnerDid,
            Files.createDirectories(work.resolve("a")),
            Clock.systemUTC(),
            new CacheStore(cacheDir, CacheStore.DEFAULT_MAX_BYTES),
            null);
    java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
    var dying =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () ->
                first.run(
                    spec,
                    new RunCancellation(),
                    dev.knotless.runner.exec.RunListener.lines(
                        line -> {
                          if (line.equals("ready")) {
                            ready.countDown();
                          }
                        })));
    assertTrue(ready.await(2, java.util.concurrent.TimeUnit.MINUTES), "the step never got ready");
    // The first scheduler's process dies mid-step: it reaches the API server no more.
    firstClient.close();
    // How its thread ends is not the point (it reaches nothing); its pod and its overlays are,
    // which the restarted scheduler's sweep below unmounts, as after a real stop.
    dying.cancel(true);
    List<Pod> left = pods();
    assertEquals(1, left.size(), "the dead scheduler's pod stays");
    String name = left.get(0).getMetadata().getName();

    PodExecutor restarted =
        cluster.cached(new CacheStore(cacheDir, CacheStore.DEFAULT_MAX_BYTES), null, work);
    restarted.adopt(Map.of("cache-key-2", name));
    restarted.removeLeftovers();
    var adopted =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> restarted.run(spec, new RunCancellation()));
    try (var exec =
        cluster
            .client
            .pods()
            .inNamespace(PodCluster.NAMESPACE)
            .withName(name)
            .inContainer(RunPod.CONTAINER)
            .redirectingOutput()
            .exec("touch", "/knotless/go")) {
      assertEquals(0, exec.exitCode().get(1, java.util.concurrent.TimeUnit.MINUTES));
    }
    String r = passes(adopted.get(2, java.util.concurrent.TimeUnit.MINUTES));
    assertTrue(
        r.contains(
            "cache /cache: not restored, this pod was adopted after its steps began; what the"
                + " run writes there is not kept"),
        r);
    assertFalse(r.contains("promoted"), r);

    String after =
        passes(restarted.run(spec(CacheUse.READ, "cat /cache/stamp"), new RunCancellation()));
    assertTrue(after.contains("v1\n"), "the adopted run promoted nothing: " + after);
  }
}
