package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Tid;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.exec.pod.RunPod;
import dev.knotless.runner.mergequeue.QueuePass;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.merge.PullReader;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The merge queue in the distributed shape: the reconciler, logged in as the repository's owner,
 * reads the queue records, stacks batches on main and queues their runs with their orders; the
 * scheduler runs each batch in a pod (the test kubelet's, under gVisor); the check-writer files the
 * batch's check and rings the repository's door, so the reconciler's next pass lands a passing
 * batch in one push, or halves a failing one until the pull that broke it is ejected. A queue
 * record naming a pull that does not exist is passed over without stopping the others. A direct
 * push to main under a running batch cancels it (its pod stops) and the batch rebuilt on the new
 * tip lands. A scheduler killed while a batch runs leaves its pod to the standby, which follows it
 * to its end, and the batch lands once.
 */
class SchedulerQueueIT {
  static final String MAIN = "refs/heads/main";
  static final String CI =
      """
      on: {pull: {base: [refs/heads/main]}}
      steps:
        - name: build
          run: test ! -e broken.txt
      """;

  private static LocalDistributed shape;
  private static HarnessAppview appview;

  /**
   * A batch with p2 in it takes seconds: time for a scheduler to be killed under it. Pushes to main
   * run it too, so the push that lands the batch takes the batch's pass.
   */
  static final String SLOW =
      """
      on: {pull: {base: [refs/heads/main]}, push: {refs: [refs/heads/main]}}
      steps:
        - name: build
          run: if [ -e slow.txt ]; then echo building slowly; sleep 8; fi; echo built
      """;

  /** A batch waits for a file only a direct push to main brings: its base must move under it. */
  static final String WAITING =
      """
      on: {pull: {base: [refs/heads/main]}}
      steps:
        - name: build
          run: if [ ! -e direct.txt ]; then echo waiting for main to move; sleep 600; fi; echo built
      """;

  private static OwnerRepo repo;
  private static OwnerRepo slow;
  private static OwnerRepo moving;
  private static ServiceProcess reconciler;
  private static final Map<OwnerRepo, List<String>> pullsOf = new java.util.HashMap<>();
  private static final Map<String, String> heads = new LinkedHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("scheduler-queue-it");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    appview = HarnessAppview.start(shape.pds().pdsUrl(), shape.pds().plcUrl());
    shape.withAppview(appview.url(), false);
    // Only the owner's account lands its queue: the services log in as the repository's owner.
    repo =
        shape.ownerRepo(
            shape.runner(),
            "app",
            Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
    slow =
        shape.ownerRepo(
            shape.runner(),
            "slow",
            Map.of("README.md", "slow\n", ".knotless/workflows/ci.yml", SLOW));
    moving =
        shape.ownerRepo(
            shape.runner(),
            "moving",
            Map.of("README.md", "moving\n", ".knotless/workflows/ci.yml", WAITING));
    shape.startCheckWriter();
    reconciler =
        shape.startReconciler(
            Map.of(
                "knotless.reconciler.pulls", "true",
                "knotless.reconciler.queue.enabled", "true",
                "knotless.reconciler.sweep", "2s"));
    shape.startScheduler();
    // A standby, which takes over when the test kills the leader.
    shape.startScheduler();
    shape.startIngester(
        Map.of("knotless.ingester.pulls", "true", "knotless.ingester.queue", "true"));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (shape != null) {
        shape.close();
      }
    } finally {
      if (appview != null) {
        appview.close();
      }
    }
  }

  @Test
  void fourQueuedPullsWithTheThirdBrokenLandThreeInCheckedPushesAndEjectTheThird()
      throws Exception {
    Checks.await(Duration.ofSeconds(90), "the first pass", () -> Checks.passes(reconciler) >= 1);
    List<String> pulls = open(repo, 4, 3, "broken.txt");
    long before = generation(repo);
    long t0 = System.nanoTime();
    queueAll(repo, true);
    String broken = pulls.get(2);
    Checks.await(
        Duration.ofMinutes(5),
        "three pulls merged and the third ejected",
        () -> merged(repo).size() == 3 && ejected(repo, broken) != null);
    System.out.printf(
        "[SchedulerQueueIT] 4 pulls queued, 1 broken: landed and ejected in %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);

    assertEquals(List.of(pulls.get(0), pulls.get(1), pulls.get(3)), merged(repo), "merged pulls");
    assertEquals(3, mergedRecords(repo), "each pull merged once: no batch landed twice");
    CheckRecord ejected = ejected(repo, broken);
    assertEquals(CheckStatus.FAILURE, ejected.status());
    assertTrue(ejected.note().startsWith("ejected from the merge queue: batch"), ejected.note());
    assertEquals(heads.get(broken), ejected.commit());

    List<CheckRecord> batches = batchChecks(repo);
    List<CheckRecord> passed =
        batches.stream().filter(c -> c.status() == CheckStatus.SUCCESS).toList();
    assertTrue(batches.stream().allMatch(c -> c.status().ended()), "every batch ended: " + batches);
    assertEquals(before + passed.size(), generation(repo), "one push a passing batch: " + batches);
    String main = tip(repo);
    assertTrue(
        passed.stream().anyMatch(c -> c.commit().equals(main)),
        "main is at the tip of a batch that passed: " + main + " " + batches);
    for (CheckRecord c : batches) {
      String log = Checks.log(shape, c);
      if (c.status() == CheckStatus.CANCELLED && log.contains("cancelled before the first step")) {
        continue; // a batch built ahead, dropped when the one before it failed: it never ran
      }
      assertTrue(log.contains("\npod knotless-run-"), "the batch ran in a pod: " + log);
    }
  }

  @Test
  void aSchedulerKilledWhileABatchRunsLeavesItToTheStandbyAndItLandsOnce() throws Exception {
    Checks.await(Duration.ofSeconds(90), "the first pass", () -> Checks.passes(reconciler) >= 1);
    List<String> pulls = open(slow, 2, 2, "slow.txt");
    long before = generation(slow);
    // Queued only once a pass has seen main's last push (its check is filed): a pass that read
    // refs before that push and the queue after it would build a batch on the old base, which the
    // next pass drops for one on the new base (a batch whose base moved, as the all-in-one does).
    String main = tip(slow);
    Checks.awaitOne(shape, Duration.ofMinutes(2), c -> c.pull() == null && c.commit().equals(main));
    queueAll(slow, false);
    // Killed once the batch's pod runs: a leader killed before its pod exists leaves a started run
    // with nothing to adopt, which the next leader ends as an error (SchedulerIT's case).
    Checks.await(
        Duration.ofMinutes(3),
        "the batch running in its pod",
        () ->
            batchChecks(slow).stream().anyMatch(c -> c.status() == CheckStatus.RUNNING)
                && shape.podsRunning() > 0);
    ServiceProcess leader = leader();
    leader.kill();
    Checks.await(
        Duration.ofMinutes(3), "both pulls merged", () -> merged(slow).size() == pulls.size());

    assertEquals(2, mergedRecords(slow), "each pull merged once");
    List<CheckRecord> batches = batchChecks(slow);
    assertEquals(1, batches.size(), "one batch, run once: " + batches);
    CheckRecord batch = batches.get(0);
    assertEquals(CheckStatus.SUCCESS, batch.status(), batch.toString());
    String log = Checks.log(shape, batch);
    assertTrue(log.contains("building slowly\nbuilt\n"), "the steps ran to their end: " + log);
    assertEquals(1, log.split("building slowly", -1).length - 1, "the step ran once: " + log);
    assertEquals(before + 1, generation(slow), "one push");
    assertEquals(batch.commit(), tip(slow));

    // The landing push takes the batch's pass, which the standby kept as it planned the batch
    // again.
    Record landed =
        Checks.awaitOne(
            shape,
            Duration.ofMinutes(1),
            c ->
                c.commit().equals(batch.commit())
                    && c.pull() == null
                    && c.ref().equals(MAIN)
                    && c.status().ended()
                    && !c.equals(batch));
    CheckRecord push = CheckRecord.fromJson(landed.value());
    assertFalse(
        landed.rkey().startsWith(CheckKeys.queuePrefix(slow.account.did(), slow.key(), MAIN)));
    assertEquals(CheckStatus.SUCCESS, push.status(), push.toString());
    assertTrue(
        push.note() != null
            && push.note().startsWith("took the pass of")
            && push.note().contains("merge-queue batch on refs/heads/main"),
        push.toString());
  }

  @Test
  void aDirectPushUnderARunningBatchCancelsItsPodAndTheRebuiltBatchLands() throws Exception {
    Checks.await(Duration.ofSeconds(90), "the first pass", () -> Checks.passes(reconciler) >= 1);
    open(moving, 1, 0, "unused");
    long before = generation(moving);
    queueAll(moving, false);
    // The push comes once the batch's pod runs: a cancel before then ends the run with no pod.
    String batchKeys = CheckKeys.queuePrefix(moving.account.did(), moving.key(), MAIN);
    AtomicReference<String> batchPod = new AtomicReference<>();
    AtomicReference<String> batchKey = new AtomicReference<>();
    Checks.await(
        Duration.ofMinutes(3),
        "the batch running in its pod",
        () -> {
          shape.pods().runningWith(RunPod.RUN_KEY_ANNOTATION).entrySet().stream()
              .filter(e -> e.getValue().startsWith(batchKeys))
              .findFirst()
              .ifPresent(
                  e -> {
                    batchPod.set(e.getKey());
                    batchKey.set(e.getValue());
                  });
          return batchPod.get() != null
              && batchChecks(moving).stream().anyMatch(c -> c.status() == CheckStatus.RUNNING);
        });
    // The batch whose pod runs, found by its key: a pass that read refs before open()'s last push
    // to main may have built a first batch on the older base, dropped before it ran.
    String stale =
        Checks.all(shape).stream()
            .filter(r -> r.rkey().equals(batchKey.get()))
            .map(r -> CheckRecord.fromJson(r.value()).commit())
            .findFirst()
            .orElseThrow(() -> new AssertionError("no check keyed " + batchKey.get()));
    String direct = moving.commit(Map.of("direct.txt", "pushed past the queue\n"));
    moving.push("main");
    Checks.await(Duration.ofMinutes(3), "the pull merged", () -> merged(moving).size() == 1);

    String main = tip(moving);
    assertFalse(main.equals(stale), "the batch built on the old tip did not land");
    assertEquals(before + 2, generation(moving), "the direct push and one landing");
    CheckRecord staleCheck =
        batchChecks(moving).stream()
            .filter(c -> c.commit().equals(stale))
            .findFirst()
            .orElseThrow();
    assertEquals(CheckStatus.CANCELLED, staleCheck.status(), staleCheck.toString());
    CheckRecord landed =
        batchChecks(moving).stream().filter(c -> c.commit().equals(main)).findFirst().orElseThrow();
    assertEquals(CheckStatus.SUCCESS, landed.status(), landed.toString());
    assertEquals(direct, landed.baseCommit());
    assertEquals(1, mergedRecords(moving), "merged once");
    // The stale batch's pod was stopped by the cancel, not left to sleep out its ten minutes.
    Matcher pod =
        Pattern.compile("\npod (knotless-run-\\d+) ").matcher(Checks.log(shape, staleCheck));
    assertTrue(pod.find(), "the stale batch ran in a pod");
    assertEquals(batchPod.get(), pod.group(1), "the pod the test saw is the stale batch's");
    Checks.await(
        Duration.ofMinutes(1),
        "the stale batch's pod stopped",
        () -> !shape.pods().running(pod.group(1)));
  }

  /** The scheduler that leads now: the one whose gauge says it holds the Lease. */
  private static ServiceProcess leader() {
    List<ServiceProcess> schedulers = shape.services("scheduler");
    ServiceProcess leader = Checks.leader(schedulers);
    if (leader == null) {
      throw new AssertionError("no scheduler leads: " + schedulers);
    }
    return leader;
  }

  /**
   * Pulls p1..pN of {@code r}'s owner, each adding its own file; the {@code marked}th also adds
   * {@code mark}. Returns their AT-URIs, in order.
   */
  private static List<String> open(OwnerRepo r, int n, int marked, String mark) throws Exception {
    PullAuthor author = new PullAuthor(r);
    List<String> pulls = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      String name = "p" + i;
      r.git("checkout", "-q", "-b", name, "main");
      Map<String, String> files = new LinkedHashMap<>();
      files.put(name + ".txt", name + "\n");
      if (i == marked) {
        files.put(mark, "marked\n");
      }
      String head = r.commit(files);
      r.push(name);
      r.git("checkout", "-q", "main");
      String uri = author.open(r, "main", r, name);
      pulls.add(uri);
      heads.put(uri, head);
    }
    // main moves past where the branches start: each pull is stacked as a merge commit.
    r.commit(Map.of("docs.md", "docs\n"));
    r.push("main");
    pullsOf.put(r, pulls);
    return pulls;
  }

  /**
   * Queues every pull of {@code r} in order in one write of the owner's, with {@code ghost} also a
   * record naming a pull that does not exist, second in line.
   */
  private static void queueAll(OwnerRepo r, boolean ghost) throws Exception {
    List<String> queued = new ArrayList<>(pullsOf.get(r));
    if (ghost) {
      queued.add(1, "at://" + r.account.did() + "/dev.knotless.pull/" + Tid.next());
    }
    List<Write> writes = new ArrayList<>();
    for (String uri : queued) {
      ObjectNode v = JsonNodeFactory.instance.objectNode();
      v.put("pull", uri);
      v.put("createdAt", java.time.Instant.now().toString());
      writes.add(Write.create(QueuePass.COLLECTION, r.key() + "." + Tid.next(), v));
    }
    r.client.applyWrites(r.account.did(), writes);
  }

  private static List<Record> states(OwnerRepo r) throws Exception {
    return PullReader.scan(
        XrpcClient.create(shape.pds().pdsUrl()),
        r.account.did(),
        "dev.knotless.state",
        r.key() + ".");
  }

  /** The pulls of {@code repo} merged, in the order they were opened. */
  private static List<String> merged(OwnerRepo repo) throws Exception {
    List<String> pulls = pullsOf.get(repo);
    List<String> out = new ArrayList<>();
    for (Record r : states(repo)) {
      String pull = r.value().path("pull").asText();
      if (r.value().path("state").asText().equals("merged") && !out.contains(pull)) {
        out.add(pull);
      }
    }
    out.sort(java.util.Comparator.comparingInt(pulls::indexOf));
    return out;
  }

  private static long mergedRecords(OwnerRepo repo) throws Exception {
    return states(repo).stream()
        .filter(r -> r.value().path("state").asText().equals("merged"))
        .count();
  }

  /** The check saying {@code pull} was ejected from the queue, or null. */
  private static CheckRecord ejected(OwnerRepo repo, String pull) throws Exception {
    String prefix = CheckKeys.pullPrefix(repo.account.did(), repo.key(), pull);
    for (Record r : Checks.all(shape)) {
      CheckRecord c = CheckRecord.fromJson(r.value());
      if (r.rkey().startsWith(prefix) && c.workflow().equals(QueuePass.EJECTED)) {
        return c;
      }
    }
    return null;
  }

  private static List<CheckRecord> batchChecks(OwnerRepo repo) throws Exception {
    String prefix = CheckKeys.queuePrefix(repo.account.did(), repo.key(), MAIN);
    List<CheckRecord> out = new ArrayList<>();
    for (Record r : Checks.all(shape)) {
      if (r.rkey().startsWith(prefix)) {
        out.add(CheckRecord.fromJson(r.value()));
      }
    }
    return out;
  }

  private static dev.knotless.storage.Snapshot snapshot(OwnerRepo repo) throws Exception {
    return new SnapshotReader(
            XrpcClient.create(shape.pds().pdsUrl()),
            StorageCache.at(Files.createTempDirectory("queue-it-cache"), Clock.systemUTC()),
            Clock.systemUTC())
        .read(repo.address, SnapshotReader.Packs.NONE);
  }

  private static long generation(OwnerRepo repo) throws Exception {
    return snapshot(repo).liveRefs().get(MAIN).generation();
  }

  private static String tip(OwnerRepo repo) throws Exception {
    return snapshot(repo).liveRefs().get(MAIN).target();
  }
}
