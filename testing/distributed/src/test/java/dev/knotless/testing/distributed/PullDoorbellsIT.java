package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Tid;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.Account;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The hosted shape hears pulls as the all-in-one does: with pulls on, the ingester rings a watched
 * repository's door for a pull, a pull state and a merge-queue record written under its key, and
 * for a push to the head of one of its open pulls in another account's repository (a fork), which
 * it learns from the heads the reconciler publishes in PostgreSQL. Both sweeps are an hour long and
 * no pass fails (a failed pass would ring again within a minute), so nothing else can be the cause.
 */
class PullDoorbellsIT {
  static final String CI =
      """
      on: {pull: {base: [refs/heads/main]}}
      steps:
        - name: check
          run: echo "checked $KNOTLESS_RUN_SHA"
      """;
  static final Duration BOUND = Duration.ofSeconds(120);
  static final String HOUR = "3600s";

  private static LocalDistributed shape;
  private static HarnessAppview appview;
  private static OwnerRepo owner;
  private static OwnerRepo fork;
  private static String featureHead;
  private static ServiceProcess reconciler;
  private static ServiceProcess ingester;
  private static DoorbellLog doorbells;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("pull-doorbells-it");
    // Steps in run pods, as the scheduler runs others' code.
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    appview = HarnessAppview.start(shape.pds().pdsUrl(), shape.pds().plcUrl());
    shape.withAppview(appview.url(), false);
    owner =
        shape.ownerRepo("app", Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
    base = owner.account.did() + "/" + owner.key();
    // Every push is made before the services start: during the tests only the records each test
    // writes can ring the door.
    owner.git("checkout", "-q", "-b", "feature", "main");
    featureHead = owner.commit(Map.of("feature.txt", "a feature\n"));
    owner.push("feature");
    owner.git("checkout", "-q", "main");
    // A collaborator's fork: its own repository in its own account, from the owner's history.
    Account forker = shape.pds().createAccount("forker");
    fork = new OwnerRepo(forker, shape.pds().pdsUrl(), "app-fork", dir.resolve("owners/fork"));
    fork.git("fetch", "-q", owner.workTree().toString(), "main");
    fork.git("reset", "-q", "--hard", "FETCH_HEAD");
    fork.commit(Map.of("fork.txt", "from the fork\n"));
    fork.push("fix");
    collaborator(owner, forker.did());

    shape.startCheckWriter();
    reconciler =
        shape.startReconciler(
            Map.of("knotless.reconciler.pulls", "true", "knotless.reconciler.sweep", HOUR));
    shape.startScheduler();
    ingester =
        shape.startIngester(
            Map.of(
                "knotless.ingester.pulls", "true",
                "knotless.ingester.queue", "true",
                "knotless.ingester.sweep", HOUR));
    doorbells = new DoorbellLog(shape.broker(), BOUND);
    // Open pulls are taken as they are on a repository's first pass: every pull comes after it.
    Checks.await(BOUND, "the first pass", () -> Checks.passes(reconciler) >= 1);
  }

  @AfterAll
  static void stop() {
    if (doorbells != null) {
      doorbells.close();
    }
    if (shape != null) {
      shape.close();
    }
    if (appview != null) {
      appview.close();
    }
  }

  @AfterEach
  void noPassFailed() throws Exception {
    // A failed pass rings its own door again within a minute: none may have stood in for a ring.
    assertEquals(0, reconciler.metric("knotless_run_passes_total{outcome=\"failed\""));
  }

  @Test
  void aNewPullRunsAtOnceRungByItsRecordNotTheSweep() throws Exception {
    long t0 = System.currentTimeMillis();
    String pull = new PullAuthor(owner).open(owner, "main", owner, "feature");

    CheckRecord check = ended(pull, featureHead);
    System.out.printf(
        "[PullDoorbellsIT] a new pull to its check ended: %d ms%n",
        System.currentTimeMillis() - t0);
    assertEquals(CheckStatus.SUCCESS, check.status(), Checks.log(shape, check));
    rung("dev.knotless.pull", t0);
  }

  @Test
  void aPushToAForksHeadRunsItsPullAgainUntilThePullIsClosed() throws Exception {
    String pull = new PullAuthor(fork).open(owner, "main", fork, "fix");
    ended(pull, fork.head());
    // The pass that ran it published the fork as a head to follow; the ingester reads it.
    awaitLogged(ingester, "Following 1 pull heads");

    fork.commit(Map.of("fork.txt", "from the fork, again\n"));
    long t0 = System.currentTimeMillis();
    String moved = fork.push("fix");
    CheckRecord again = ended(pull, moved);
    System.out.printf(
        "[PullDoorbellsIT] a push to a fork's head to its pull's check ended: %d ms%n",
        System.currentTimeMillis() - t0);
    assertEquals(CheckStatus.SUCCESS, again.status(), Checks.log(shape, again));
    rung("dev.knotless.ref", t0);

    // The owner closes it: the state rings the door, and the pass that finds it closed has the
    // ingester follow the fork no more.
    long closed = System.currentTimeMillis();
    new PullAuthor(owner).state(owner, pull, "closed");
    rung("dev.knotless.state", closed);
    awaitLogged(ingester, "Following 0 pull heads");
    System.out.printf(
        "[PullDoorbellsIT] a pull closed to its fork no longer followed: %d ms%n",
        System.currentTimeMillis() - closed);

    fork.commit(Map.of("fork.txt", "after the close\n"));
    long after = System.currentTimeMillis();
    String unheard = fork.push("fix");
    // A queue record written after the push marks how far the firehose has been read: one PDS's
    // commits come in order, and one repository's doorbells share a partition.
    queueRecord(pull);
    List<DoorbellLog.Bell> bells = rung("dev.knotless.queue", after);
    assertTrue(
        bells.stream()
            .noneMatch(b -> b.frameOf(base, "dev.knotless.ref") && b.madeAtMillis() >= after),
        "the closed pull's fork rang the base: " + bells);
    assertTrue(
        Checks.all(shape).stream()
            .map(r -> CheckRecord.fromJson(r.value()))
            .noneMatch(c -> unheard.equals(c.commit())),
        "the closed pull ran");
  }

  @Test
  void aMergeQueueRecordRingsTheBaseRepositorysDoor() throws Exception {
    String pull = "at://" + owner.account.did() + "/dev.knotless.pull/" + owner.key() + ".q";
    long t0 = System.currentTimeMillis();
    queueRecord(pull);

    rung("dev.knotless.queue", t0);
    System.out.printf(
        "[PullDoorbellsIT] a queue record to its doorbell on the topic: %d ms%n",
        System.currentTimeMillis() - t0);
  }

  /** The one ended check of {@code pull} at {@code head}. */
  private static CheckRecord ended(String pull, String head) throws Exception {
    return CheckRecord.fromJson(
        Checks.awaitOne(
                shape,
                BOUND,
                c -> pull.equals(c.pull()) && head.equals(c.commit()) && c.status().ended())
            .value());
  }

  /**
   * Waits for a doorbell of the base repository for a {@code collection} record, made since {@code
   * sinceMillis}; returns every doorbell read so far.
   */
  private static List<DoorbellLog.Bell> rung(String collection, long sinceMillis) throws Exception {
    return doorbells.until(
        BOUND,
        collection + " doorbell of " + base,
        seen ->
            seen.stream()
                .anyMatch(b -> b.frameOf(base, collection) && b.madeAtMillis() >= sinceMillis));
  }

  /** The owner queues {@code pull}, as {@code knotless queue} writes it. */
  private static void queueRecord(String pull) throws Exception {
    ObjectNode v =
        JsonNodeFactory.instance
            .objectNode()
            .put("pull", pull)
            .put("createdAt", Instant.now().toString());
    owner.client.putRecord(
        owner.account.did(), "dev.knotless.queue", owner.key() + "." + Tid.next(), v, Swap.none());
  }

  /** Names {@code did} among the repository's collaborators, in its record. */
  private static void collaborator(OwnerRepo repo, String did) throws Exception {
    Record r = repo.client.getRecord(repo.account.did(), "dev.knotless.repo", repo.address.name());
    ObjectNode v = ((ObjectNode) r.value()).deepCopy();
    v.putArray("collaborators").add(did);
    repo.client.putRecord(
        repo.account.did(), "dev.knotless.repo", repo.address.name(), v, Swap.cid(r.cid()));
  }

  private static void awaitLogged(ServiceProcess s, String text) throws Exception {
    Checks.await(
        BOUND, s + " to log \"" + text + "\"", () -> Files.readString(s.log()).contains(text));
  }
}
