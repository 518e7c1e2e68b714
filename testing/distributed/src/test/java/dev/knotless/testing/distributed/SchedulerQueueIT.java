package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The merge queue in the distributed shape: the reconciler, logged in as the repository's owner,
 * reads the queue records, stacks batches on main and queues their runs with their orders; the
 * scheduler runs each batch in a pod (the test kubelet's, under gVisor); the check-writer files the
 * batch's check and rings the repository's door, so the reconciler's next pass lands a passing
 * batch in one push, or halves a failing one until the pull that broke it is ejected. A queue
 * record naming a pull that does not exist is passed over without stopping the others.
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
  private static OwnerRepo repo;
  private static ServiceProcess reconciler;
  private static final List<String> pulls = new ArrayList<>();
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
    shape.startCheckWriter();
    reconciler =
        shape.startReconciler(
            Map.of(
                "knotless.reconciler.pulls", "true",
                "knotless.reconciler.queue.enabled", "true",
                "knotless.reconciler.sweep", "2s"));
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
    open(4, 3);
    long before = generation();
    long t0 = System.nanoTime();
    queueAll();
    String broken = pulls.get(2);
    Checks.await(
        Duration.ofMinutes(5),
        "three pulls merged and the third ejected",
        () -> merged().size() == 3 && ejected(broken) != null);
    System.out.printf(
        "[SchedulerQueueIT] 4 pulls queued, 1 broken: landed and ejected in %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);

    assertEquals(List.of(pulls.get(0), pulls.get(1), pulls.get(3)), merged(), "merged pulls");
    assertEquals(3, mergedRecords(), "each pull merged once: no batch landed twice");
    CheckRecord ejected = ejected(broken);
    assertEquals(CheckStatus.FAILURE, ejected.status());
    assertTrue(ejected.note().startsWith("ejected from the merge queue: batch"), ejected.note());
    assertEquals(heads.get(broken), ejected.commit());

    List<CheckRecord> batches = batchChecks();
    List<CheckRecord> passed =
        batches.stream().filter(c -> c.status() == CheckStatus.SUCCESS).toList();
    assertTrue(batches.stream().allMatch(c -> c.status().ended()), "every batch ended: " + batches);
    assertEquals(before + passed.size(), generation(), "one push a passing batch: " + batches);
    String main = tip();
    assertTrue(
        passed.stream().anyMatch(c -> c.commit().equals(main)),
        "main is at the tip of a batch that passed: " + main + " " + batches);
    for (CheckRecord c : batches) {
      String log = Checks.log(shape, c);
      assertTrue(log.startsWith("pod knotless-"), "the batch ran in a pod: " + log);
    }
  }

  /** Pulls p1..pN of the owner's, each adding its own file; the {@code broken}th breaks. */
  private static void open(int n, int broken) throws Exception {
    PullAuthor author = new PullAuthor(repo);
    for (int i = 1; i <= n; i++) {
      String name = "p" + i;
      repo.git("checkout", "-q", "-b", name, "main");
      Map<String, String> files = new LinkedHashMap<>();
      files.put(name + ".txt", name + "\n");
      if (i == broken) {
        files.put("broken.txt", "this breaks the build\n");
      }
      String head = repo.commit(files);
      repo.push(name);
      repo.git("checkout", "-q", "main");
      String uri = author.open(repo, "main", repo, name);
      pulls.add(uri);
      heads.put(uri, head);
    }
    // main moves past where the branches start: each pull is stacked as a merge commit.
    repo.commit(Map.of("docs.md", "docs\n"));
    repo.push("main");
  }

  /** Queues every pull in order, and one that does not exist, in one write of the owner's. */
  private static void queueAll() throws Exception {
    List<String> queued = new ArrayList<>(pulls);
    queued.add(1, "at://" + repo.account.did() + "/dev.knotless.pull/" + Tid.next());
    List<Write> writes = new ArrayList<>();
    for (String uri : queued) {
      ObjectNode v = JsonNodeFactory.instance.objectNode();
      v.put("pull", uri);
      v.put("createdAt", java.time.Instant.now().toString());
      writes.add(Write.create(QueuePass.COLLECTION, repo.key() + "." + Tid.next(), v));
    }
    repo.client.applyWrites(repo.account.did(), writes);
  }

  private static List<Record> states() throws Exception {
    return PullReader.scan(
        XrpcClient.create(shape.pds().pdsUrl()),
        repo.account.did(),
        "dev.knotless.state",
        repo.key() + ".");
  }

  /** The pulls merged, in the order of {@link #pulls}. */
  private static List<String> merged() throws Exception {
    List<String> out = new ArrayList<>();
    for (Record r : states()) {
      String pull = r.value().path("pull").asText();
      if (r.value().path("state").asText().equals("merged") && !out.contains(pull)) {
        out.add(pull);
      }
    }
    out.sort(java.util.Comparator.comparingInt(pulls::indexOf));
    return out;
  }

  private static long mergedRecords() throws Exception {
    return states().stream().filter(r -> r.value().path("state").asText().equals("merged")).count();
  }

  /** The check saying {@code pull} was ejected from the queue, or null. */
  private static CheckRecord ejected(String pull) throws Exception {
    String prefix = CheckKeys.pullPrefix(repo.account.did(), repo.key(), pull);
    for (Record r : Checks.all(shape)) {
      CheckRecord c = CheckRecord.fromJson(r.value());
      if (r.rkey().startsWith(prefix) && c.workflow().equals(QueuePass.EJECTED)) {
        return c;
      }
    }
    return null;
  }

  private static List<CheckRecord> batchChecks() throws Exception {
    String prefix = CheckKeys.queuePrefix(repo.account.did(), repo.key(), MAIN);
    List<CheckRecord> out = new ArrayList<>();
    for (Record r : Checks.all(shape)) {
      if (r.rkey().startsWith(prefix)) {
        out.add(CheckRecord.fromJson(r.value()));
      }
    }
    return out;
  }

  private static dev.knotless.storage.Snapshot snapshot() throws Exception {
    return new SnapshotReader(
            XrpcClient.create(shape.pds().pdsUrl()),
            StorageCache.at(Files.createTempDirectory("queue-it-cache"), Clock.systemUTC()),
            Clock.systemUTC())
        .read(repo.address, SnapshotReader.Packs.NONE);
  }

  private static long generation() throws Exception {
    return snapshot().liveRefs().get(MAIN).generation();
  }

  private static String tip() throws Exception {
    return snapshot().liveRefs().get(MAIN).target();
  }
}
