package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.exec.pod.RunPod;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.TestKubelet;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The distributed shape with the scheduler: the reconciler only queues runs, two schedulers stand
 * for the Lease on the mock API server, and the leader runs each run as a pod that the test kubelet
 * runs as a real container. The leader is killed mid-step; the standby takes over, adopts the pod,
 * and the check ends with every line once, while a leftover pod is swept and no credential of the
 * services reaches a step or the pod spec. Then a leader dies as its run's pod goes too: the next
 * leader ends that check as an error, as a start does, rather than run its steps a second time. The
 * leaders keep each pod run's step time in the state in PostgreSQL, as the reconcilers' workers do,
 * and file the owner's minutes record from it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SchedulerIT {
  static final String NAMESPACE = "runs";
  static final String SANDBOX = "gvisor";
  static final String SECRET = "sealed-" + Long.toHexString(System.nanoTime());
  static final String CI =
      """
      on: {push: {refs: [main]}}
      secrets: [DEPLOY_TOKEN]
      steps:
        - name: look
          run: |
            echo "token is $DEPLOY_TOKEN"
            env | sort
            tr '\\0' '\\n' < /proc/1/environ
        - name: wait
          run: echo ready; while [ ! -f /knotless/go ]; do sleep 0.1; done; echo after
        - name: last
          run: echo last step
      """;

  private static LocalDistributed shape;
  private static OwnerRepo owner;
  private static KubeApiServer api;
  private static TestKubelet kubelet;
  private static KubernetesClient client;
  private static ServiceProcess reconciler;
  private static Path secrets;
  private static Map<String, String> SCHEDULER_SETTINGS;
  private static final String TOKEN = "scheduler-token-" + Long.toHexString(System.nanoTime());

  @BeforeAll
  static void start() throws Exception {
    LocalDocker.ensure();
    api = KubeApiServer.start();
    kubelet = TestKubelet.start(api, Map.of(SANDBOX, LocalDocker.SANDBOX_RUNTIME), 0);
    client = api.client(NAMESPACE, "test-" + TOKEN);
    Path dir = Files.createTempDirectory("scheduler-it");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    owner =
        shape.ownerRepo("app", Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
    secrets = dir.resolve("secrets.json");
    Files.writeString(
        secrets, "{\"" + owner.account.did() + "/app\": {\"DEPLOY_TOKEN\": \"" + SECRET + "\"}}");
    SCHEDULER_SETTINGS =
        Map.of(
            "knotless.scheduler.secrets-file",
            secrets.toString(),
            "knotless.scheduler.allowance",
            "60");
    shape.startCheckWriter();
    reconciler = shape.startReconciler();
    for (int i = 0; i < 2; i++) {
      shape.startScheduler(
          api.url(), TOKEN, NAMESPACE, SANDBOX, LocalDocker.BUSYBOX, SCHEDULER_SETTINGS);
    }
    shape.startIngester();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (shape != null) {
        shape.close();
      }
    } finally {
      if (kubelet != null) {
        kubelet.close();
      }
      if (client != null) {
        client.close();
      }
      if (api != null) {
        api.close();
      }
    }
  }

  private static List<Pod> pods() {
    return client.pods().inNamespace(NAMESPACE).list().getItems();
  }

  private static String inPod(String pod, String... command) throws Exception {
    return RunPods.exec(client, pod, command);
  }

  @Test
  @Order(1)
  void theStandbyAdoptsTheLeadersPodAndTheCheckEndsWithEveryLineOnce() throws Exception {
    Checks.await(Duration.ofSeconds(90), "the baseline pass", () -> Checks.passes(reconciler) >= 1);
    List<ServiceProcess> schedulers = shape.services("scheduler-");
    Checks.await(Duration.ofSeconds(30), "a leader", () -> Checks.leader(schedulers) != null);
    ServiceProcess first = Checks.leader(schedulers);

    owner.commit(Map.of("README.md", "hello again\n"));
    long t0 = System.nanoTime();
    String sha = owner.push("main");
    awaitPodWaiting();
    System.out.printf(
        "[SchedulerIT] push to a step running in a pod: %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    Pod pod = pods().get(0);
    String spec = Serialization.asJson(pod);
    assertEquals(SANDBOX, pod.getSpec().getRuntimeClassName(), spec);
    assertEquals(Boolean.FALSE, pod.getSpec().getAutomountServiceAccountToken(), spec);
    assertFalse(spec.contains(SECRET), "the secret is in the pod spec: " + spec);
    assertFalse(spec.contains(shape.runner().password()), spec);
    assertFalse(spec.contains(TOKEN), spec);

    // A pod of this runner's that no run holds, as a crashed scheduler leaves one.
    String did = shape.runner().did();
    client
        .pods()
        .inNamespace(NAMESPACE)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("knotless-leftover")
                .addToLabels(RunPod.RUNNER_LABEL, RunPod.labelValue(did))
                .addToAnnotations(RunPod.RUNNER_ANNOTATION, did)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName(RunPod.CONTAINER)
                .withImage(LocalDocker.BUSYBOX)
                .withCommand("sh", "-c", "sleep 3600")
                .endContainer()
                .endSpec()
                .build())
        .create();

    first.kill();
    long t1 = System.nanoTime();
    Checks.await(
        Duration.ofSeconds(30),
        "the standby leading",
        () -> {
          ServiceProcess now = Checks.leader(schedulers);
          return now != null && now != first;
        });
    System.out.printf(
        "[SchedulerIT] the standby leads %d ms after the leader was killed%n",
        (System.nanoTime() - t1) / 1_000_000);
    Checks.await(
        Duration.ofSeconds(60),
        "the leftover pod swept",
        () -> client.pods().inNamespace(NAMESPACE).withName("knotless-leftover").get() == null);
    assertEquals(
        pod.getMetadata().getName(),
        pods().get(0).getMetadata().getName(),
        "the live run's pod was left alone");
    inPod(pod.getMetadata().getName(), "touch", "/knotless/go");

    Record ended =
        Checks.awaitOne(
            shape, Duration.ofSeconds(120), c -> c.status().ended() && c.commit().equals(sha));
    CheckRecord check = CheckRecord.fromJson(ended.value());
    String log = Checks.log(shape, check);
    assertEquals(CheckStatus.SUCCESS, check.status(), log);
    assertEquals(1, count(log, "ready\n"), log);
    assertTrue(log.contains("after\n") && log.contains("last step\n"), log);
    assertTrue(log.contains("token is ***\n"), log);
    assertFalse(log.contains(SECRET), log);
    assertFalse(log.contains(shape.runner().password()), log);
    assertFalse(log.contains(TOKEN), log);
    assertFalse(log.contains("QUARKUS_DATASOURCE_PASSWORD"), log);
    assertFalse(log.contains("KNOTLESS_PASSWORD"), log);
    Checks.await(Duration.ofSeconds(30), "the run's pod deleted", () -> pods().isEmpty());
    assertNull(client.pods().inNamespace(NAMESPACE).withName("knotless-leftover").get());
    assertEquals(1, Checks.all(shape).size(), "one check for the one push");
    // Adopted, the run's step time counts from the adoption: the old leader's share is not kept.
    long used = usedMillis();
    assertTrue(
        used > 0 && used <= stepMillis(check) + 1_000,
        "the state holds " + used + " ms for steps of " + stepMillis(check) + " ms");
    assertMinutesRecord();

    // Every name the dashboard and alerts read, off the services of this test, scheduler included.
    Map<String, ServiceProcess> running = new java.util.HashMap<>();
    running.put("ingester", shape.services("ingester").get(0));
    running.put("reconciler", reconciler);
    running.put("check-writer", shape.services("check-writer").get(0));
    running.put("scheduler", Checks.leader(schedulers));
    assertEquals(
        List.of(), ExportedMetrics.missing(LocalDistributed.projectRoot(), running), "metrics");
  }

  @Test
  @Order(2)
  void aStartedRunWhosePodIsGoneWhenTheStandbyLeadsEndsAsAnErrorAndRunsNoStepAgain()
      throws Exception {
    shape.startScheduler(
        api.url(), TOKEN, NAMESPACE, SANDBOX, LocalDocker.BUSYBOX, SCHEDULER_SETTINGS);
    // The one killed by the test before does not answer, so it is never taken for the leader.
    List<ServiceProcess> schedulers = shape.services("scheduler-");
    Checks.await(Duration.ofSeconds(60), "a leader", () -> Checks.leader(schedulers) != null);
    ServiceProcess leading = Checks.leader(schedulers);

    owner.commit(Map.of("README.md", "hello a third time\n"));
    String sha = owner.push("main");
    awaitPodWaiting();
    String podName = pods().get(0).getMetadata().getName();
    long podsMade = podsMade();

    // The leader dies, and its run's pod with it (a node drained as the scheduler's was).
    leading.kill();
    client.pods().inNamespace(NAMESPACE).withName(podName).withGracePeriod(0).delete();

    Record ended =
        Checks.awaitOne(
            shape, Duration.ofSeconds(120), c -> c.status().ended() && c.commit().equals(sha));
    CheckRecord check = CheckRecord.fromJson(ended.value());
    assertEquals(CheckStatus.ERROR, check.status(), String.valueOf(check));
    assertEquals(
        "the runner stopped before this run started or finished; knotless rerun runs it again",
        check.note());
    ServiceProcess now = Checks.leader(schedulers);
    assertTrue(now != null && now != leading, "the standby leads");
    assertEquals(podsMade, podsMade(), "the standby made a pod for the run again");
    assertTrue(pods().isEmpty(), "a pod is left: " + pods());
    assertEquals(
        1,
        Checks.all(shape).stream()
            .filter(r -> CheckRecord.fromJson(r.value()).commit().equals(sha))
            .count(),
        "one check for the push");
  }

  @Test
  @Order(3)
  void aPodRunsStepTimeGoesIntoTheStateBesideTheReconcilersAndTheMinutesRecord() throws Exception {
    long before = usedMillis();
    owner.commit(Map.of("README.md", "hello a fourth time\n"));
    String sha = owner.push("main");
    awaitPodWaiting();
    inPod(pods().get(0).getMetadata().getName(), "touch", "/knotless/go");
    CheckRecord check =
        CheckRecord.fromJson(
            Checks.awaitOne(
                    shape,
                    Duration.ofSeconds(120),
                    c -> c.status().ended() && c.commit().equals(sha))
                .value());
    assertEquals(CheckStatus.SUCCESS, check.status(), String.valueOf(check));
    long[] added = new long[1];
    Checks.await(
        Duration.ofSeconds(30),
        "the run's step time in the state",
        () -> {
          added[0] = usedMillis() - before;
          return added[0] > 0;
        });
    assertTrue(
        Math.abs(added[0] - stepMillis(check)) < 1_000,
        "the state gained " + added[0] + " ms for steps of " + stepMillis(check) + " ms");
    assertMinutesRecord();
  }

  /** The owner's minutes record is filed, from the usage in the state, with the allowance. */
  private static void assertMinutesRecord() throws Exception {
    long used = usedMillis();
    dev.knotless.atproto.XrpcClient pds =
        dev.knotless.atproto.XrpcClient.create(shape.pds().pdsUrl());
    Checks.await(
        Duration.ofSeconds(30),
        "the owner's minutes record",
        () ->
            pds.findRecord(shape.runner().did(), "dev.knotless.minutes", owner.account.did())
                .isPresent());
    var minutes =
        pds.getRecord(shape.runner().did(), "dev.knotless.minutes", owner.account.did()).value();
    assertEquals(used / 60_000, minutes.path("minutes").asLong(), minutes.toString());
    assertEquals(60, minutes.path("allowance").asLong(), minutes.toString());
    System.out.printf(
        "[SchedulerIT] %d ms of steps in pods kept in the state; minutes record %s%n",
        used, minutes);
  }

  /** The time the check's steps took, as the check-writer filed them. */
  private static long stepMillis(CheckRecord check) {
    long steps = 0;
    for (var step : check.steps()) {
      if (step.startedAt() != null && step.endedAt() != null) {
        steps += Duration.between(step.startedAt(), step.endedAt()).toMillis();
      }
    }
    return steps;
  }

  /** Waits until the one run's pod has printed "ready" in its second step, waiting to go on. */
  private static void awaitPodWaiting() throws Exception {
    Checks.await(
        Duration.ofSeconds(120),
        "the run's pod waiting in its second step",
        () -> {
          List<Pod> p = pods();
          try {
            return p.size() == 1
                && inPod(p.get(0).getMetadata().getName(), "cat", "/knotless/steps/1/out")
                    .contains("ready");
          } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            return false; // its container is not running yet
          }
        });
  }

  /** The public step time the state holds for the owner's repository, over every day. */
  private static long usedMillis() throws Exception {
    String repo = owner.account.did() + "/" + owner.key();
    try (var c =
            java.sql.DriverManager.getConnection(
                shape.postgres().jdbcUrl(), "postgres", "postgres");
        var q =
            c.prepareStatement("select coalesce(sum(millis), 0) from repo_used where repo = ?")) {
      q.setString(1, repo);
      try (var r = q.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  /** How many pods were made in the runs' namespace so far, as the API server was asked. */
  private static long podsMade() {
    return api.requests().stream()
        .filter(r -> r.startsWith("POST /api/v1/namespaces/" + NAMESPACE + "/pods"))
        .filter(r -> !r.contains("/exec"))
        .count();
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }
}
