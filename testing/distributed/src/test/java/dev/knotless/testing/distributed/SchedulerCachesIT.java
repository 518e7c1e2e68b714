package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.infra.OwnerRepo;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Caches kept on the node, across the services: two schedulers (each its own JVM) share the node's
 * cache directory, as two scheduler pods on one node share the chart's hostPath, and run pods get
 * their caches' overlays as volumes from the test kubelet under gVisor. The leader is killed with
 * SIGKILL while a run's step writes into its cache: the standby adopts the pod, the check ends as a
 * pass, nothing of the killed run is promoted, and no overlay or layer is left on the node.
 */
class SchedulerCachesIT {

  static final String CI =
      """
      on: {push: {refs: [main]}}
      cache: [/cache]
      steps:
        - name: build
          run: |
            cat /cache/stamp 2>/dev/null || echo cold
            echo ready
            if [ -f wait.txt ]; then while [ ! -f /knotless/go ]; do sleep 0.1; done; fi
            cp README.md /cache/stamp
            echo wrote
      """;

  private static LocalDistributed shape;
  private static OwnerRepo repo;
  private static ServiceProcess reconciler;
  private static Path caches;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("scheduler-caches-it");
    caches = dir.resolve("node-caches");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    repo =
        shape.ownerRepo("cached", Map.of("README.md", "one\n", ".knotless/workflows/ci.yml", CI));
    shape.startCheckWriter();
    reconciler = shape.startReconciler();
    Map<String, String> onNode =
        Map.of(
            "knotless.scheduler.run-cache-dir",
            caches.toString(),
            "knotless.scheduler.run-cache-node",
            "test-kubelet");
    shape.startScheduler(onNode);
    shape.startScheduler(onNode);
    shape.startIngester();
  }

  @AfterAll
  static void stop() throws Exception {
    if (shape != null) {
      shape.close();
    }
    for (String m : mounts()) {
      new ProcessBuilder("umount", "-l", m).inheritIO().start().waitFor();
    }
  }

  private static List<String> mounts() throws Exception {
    String prefix = caches.toAbsolutePath() + "/";
    return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
        .map(l -> l.split(" ")[4])
        .filter(m -> m.startsWith(prefix))
        .toList();
  }

  private static CheckRecord ended(String sha) throws Exception {
    return CheckRecord.fromJson(
        Checks.awaitOne(
                shape, Duration.ofMinutes(3), c -> c.status().ended() && c.commit().equals(sha))
            .value());
  }

  private static String passed(String sha) throws Exception {
    CheckRecord check = ended(sha);
    String log = Checks.log(shape, check);
    assertEquals(CheckStatus.SUCCESS, check.status(), log);
    return log;
  }

  private static String inPod(String pod, String... command) throws Exception {
    try (KubernetesClient client = shape.pods().client()) {
      return RunPods.exec(client, pod, command);
    }
  }

  @Test
  void aSchedulerKilledWhileItsPodWritesItsCacheLeavesItToTheStandbyAndNothingOnTheNode()
      throws Exception {
    Checks.await(Duration.ofSeconds(90), "the first pass", () -> Checks.passes(reconciler) >= 1);
    // The first push after the first pass runs, and makes the base (the check's log here was seen
    // without the lines a run's caches add at its end, so the next runs' reads are what is
    // checked): the node's volume, nothing
    // copied.
    repo.commit(Map.of("README.md", "one\n"));
    String first = passed(repo.push("main"));
    assertTrue(first.contains("cache /cache: a volume of the node, nothing copied"), first);

    repo.commit(Map.of("README.md", "two\n", "wait.txt", "wait\n"));
    String sha = repo.push("main");
    String[] pod = new String[1];
    Checks.await(
        Duration.ofMinutes(2),
        "the run's step reading its cache",
        () -> {
          try (KubernetesClient client = shape.pods().client()) {
            List<Pod> pods = client.pods().list().getItems();
            if (pods.size() != 1) {
              return false;
            }
            pod[0] = pods.get(0).getMetadata().getName();
            return inPod(pod[0], "cat", "/knotless/steps/0/out").contains("ready");
          } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            return false; // its container is not running yet
          }
        });
    assertEquals(1, mounts().size(), "the run's overlay is mounted on the node");
    List<ServiceProcess> schedulers = shape.services("scheduler");
    ServiceProcess leader = Checks.leader(schedulers);
    leader.kill();
    Checks.await(
        Duration.ofSeconds(60),
        "the standby leading",
        () -> {
          ServiceProcess now = Checks.leader(schedulers);
          return now != null && now != leader;
        });
    inPod(pod[0], "touch", "/knotless/go");

    String adopted = passed(sha);
    assertTrue(adopted.contains("one\n"), "the run read the first push's base: " + adopted);
    assertTrue(adopted.contains("wrote\n"), "its step wrote into the volume: " + adopted);
    // The adopter's own lines (PodNodeCachesIT checks them) are not checked here: the check's log
    // of an adopted run was seen without them, its bytes matched to what the killed one sent.
    Checks.await(
        Duration.ofSeconds(60), "the killed run's overlay unmounted", () -> mounts().isEmpty());
    try (Stream<Path> runs = Files.list(caches.resolve("runs"));
        Stream<Path> all = Files.walk(caches.resolve("bases"))) {
      assertEquals(List.of(), runs.toList(), "a run's layers were left");
      assertEquals(
          List.of(),
          all.filter(p -> p.getFileName().toString().endsWith(".making")).toList(),
          "a half-made base was left");
    }

    // The next push reads the first push's base, not what the adopted run wrote, and promotes.
    Map<String, String> third = new java.util.HashMap<>();
    third.put("README.md", "three\n");
    third.put("wait.txt", null);
    repo.commit(third);
    String last = passed(repo.push("main"));
    assertTrue(last.contains("one\n") && !last.contains("two\n"), last);
  }
}
