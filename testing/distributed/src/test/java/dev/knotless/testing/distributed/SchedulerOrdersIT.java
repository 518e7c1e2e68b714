package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.storage.SnapshotReader;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import dev.knotless.testing.kubelet.KubeApiServer;
import dev.knotless.testing.kubelet.TestKubelet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs other than a push's in the distributed shape with the scheduler, each run in a pod the test
 * kubelet runs as a real container. Pulls: the reconciler lists the repository's pulls from the
 * appview, files each due pull's check and only queues its run, with its order; the scheduler reads
 * the pull record and its head from the PDS, merges the head into the base tip again, and runs the
 * steps. A pull's run gets no secret on the scheduler either, though the scheduler's secrets file
 * grants the repository one. A write-back: a run asked for by name in a repository of the runner's
 * own writes what its steps changed in the pod back to the branch, as a new commit.
 */
class SchedulerOrdersIT {
  static final String NAMESPACE = "runs";
  static final String SANDBOX = "gvisor";
  static final String SECRET = "pull-secret-" + Long.toHexString(System.nanoTime());
  static final String FMT =
      """
      on: {asked: {refs: ["*"], commit: ["gen/*.txt"]}}
      steps:
        - name: generate
          run: |
            mkdir -p gen other
            echo "made at $KNOTLESS_RUN_SHA" > gen/out.txt
            echo "not written back" > other/skip.txt
      """;
  static final String CI =
      """
      on: {pull: {base: [refs/heads/main]}}
      secrets: [TOKEN]
      steps:
        - name: check
          run: |
            echo "sha=$KNOTLESS_RUN_SHA base=$KNOTLESS_RUN_BASE ref=$KNOTLESS_RUN_REF"
            echo "token=${TOKEN:-none}"
            cat change.txt
            test ! -e bad.flag
      """;

  /** Every run prints a value of its own, so a log copied is told from a run made again. */
  static final String REUSE =
      """
      on: {push: {refs: [refs/heads/main]}, pull: {base: [refs/heads/main]}}
      steps:
        - name: check
          run: echo "nonce=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \\n')"
      """;

  private static LocalDistributed shape;
  private static HarnessAppview appview;
  private static OwnerRepo owner;
  private static OwnerRepo own;
  private static OwnerRepo reuse;
  private static KubeApiServer api;
  private static TestKubelet kubelet;
  private static KubernetesClient client;
  private static ServiceProcess reconciler;
  private static final String TOKEN = "scheduler-token-" + Long.toHexString(System.nanoTime());

  @BeforeAll
  static void start() throws Exception {
    LocalDocker.ensure();
    api = KubeApiServer.start();
    kubelet = TestKubelet.start(api, Map.of(SANDBOX, LocalDocker.SANDBOX_RUNTIME), 0);
    client = api.client(NAMESPACE, "test-" + TOKEN);
    Path dir = Files.createTempDirectory("scheduler-orders-it");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    appview = HarnessAppview.start(shape.pds().pdsUrl(), shape.pds().plcUrl());
    shape.withAppview(appview.url(), false);
    owner =
        shape.ownerRepo("app", Map.of("README.md", "hello\n", ".knotless/workflows/ci.yml", CI));
    reuse =
        shape.ownerRepo(
            "reuse", Map.of("README.md", "reuse\n", ".knotless/workflows/reuse.yml", REUSE));
    // A write-back pushes as the runner: only to a repository of its own.
    own =
        shape.ownerRepo(
            shape.runner(), "own", Map.of("README.md", "hi\n", ".knotless/workflows/fmt.yml", FMT));
    Path secrets = dir.resolve("secrets.json");
    Files.writeString(
        secrets, "{\"" + owner.account.did() + "/app\": {\"TOKEN\": \"" + SECRET + "\"}}");
    shape.startCheckWriter();
    // A failed pass rings again after 2 s rather than a minute.
    reconciler =
        shape.startReconciler(
            Map.of("knotless.reconciler.pulls", "true", "knotless.reconciler.sweep", "2s"));
    shape.startScheduler(
        api.url(),
        TOKEN,
        NAMESPACE,
        SANDBOX,
        LocalDocker.BUSYBOX,
        Map.of("knotless.scheduler.secrets-file", secrets.toString()));
    // The ingester rings a repository's door for a pull record, as the reconciler reads pulls.
    shape.startIngester(Map.of("knotless.ingester.pulls", "true"));
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

  @Test
  void aPullsCheckRunsAsAPodAtTheMergeWithNoSecretAndAFailingPullFails() throws Exception {
    // Open pulls are taken as they are on a repository's first pass: the pulls come after it.
    Checks.await(Duration.ofSeconds(90), "the first pass", () -> Checks.passes(reconciler) >= 1);
    String good = branch("good", Map.of("change.txt", "a good change\n"));
    String bad = branch("bad", Map.of("change.txt", "a bad change\n", "bad.flag", "x\n"));
    // main moves on past both branches, so each pull is checked at a merge commit.
    String base = owner.commit(Map.of("docs.md", "docs\n"));
    owner.push("main");
    long podsBefore = podsMade();
    PullAuthor author = new PullAuthor(owner);
    long t0 = System.nanoTime();
    String goodPull = author.open(owner, "main", owner, "good");
    String badPull = author.open(owner, "main", owner, "bad");

    CheckRecord passed = ended(goodPull);
    System.out.printf(
        "[SchedulerOrdersIT] pull opened to its check ended: %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    String log = Checks.log(shape, passed);
    assertEquals(CheckStatus.SUCCESS, passed.status(), log);
    assertEquals("refs/heads/good", passed.ref());
    assertEquals(good, passed.commit());
    assertEquals(base, passed.baseCommit());
    assertTrue(log.contains("sha=" + good + " base=" + base + " ref=refs/heads/good"), log);
    assertTrue(log.contains("a good change"), log);
    assertTrue(log.contains(": the head " + good + " merged into refs/heads/main at " + base), log);
    assertTrue(log.contains("token=none"), "a pull's run gets no secret: " + log);
    assertTrue(log.contains("TOKEN is not given to a pull's run"), log);
    assertFalse(log.contains(SECRET), log);
    assertFalse(log.contains(TOKEN), log);

    CheckRecord failed = ended(badPull);
    String badLog = Checks.log(shape, failed);
    assertEquals(CheckStatus.FAILURE, failed.status(), badLog);
    assertEquals(bad, failed.commit());
    assertTrue(badLog.contains("a bad change"), badLog);

    assertEquals(2, podsMade() - podsBefore, "each pull's run had a pod of its own");
    Checks.await(
        Duration.ofSeconds(30),
        "the runs' pods deleted",
        () -> client.pods().inNamespace(NAMESPACE).list().getItems().isEmpty());
  }

  @Test
  void aRunAskedForByNameWritesBackWhatItsStepsChangedInThePod() throws Exception {
    Checks.await(Duration.ofSeconds(90), "the first pass", () -> Checks.passes(reconciler) >= 1);
    own.git("checkout", "-q", "-b", "feature", "main");
    String sha = own.commit(Map.of("feature.txt", "f\n"));
    own.push("feature");
    own.git("checkout", "-q", "main");
    long podsBefore = podsMade();

    OwnerCli.run(
        shape,
        shape.runner(),
        Map.of("KNOTLESS_APPVIEW", appview.url().toString()),
        "",
        "rerun",
        own.label(),
        "--ref",
        "feature",
        "--workflow",
        "fmt");
    CheckRecord c =
        CheckRecord.fromJson(
            Checks.awaitOne(
                    shape,
                    Duration.ofSeconds(180),
                    r -> r.workflow().equals("fmt") && r.commit().equals(sha) && r.status().ended())
                .value());
    String log = Checks.log(shape, c);
    assertEquals(CheckStatus.SUCCESS, c.status(), c.note() + "\n" + log);
    assertTrue(log.contains("==> wrote back 1 files to refs/heads/feature as "), log);
    assertEquals(1, podsMade() - podsBefore, "the run had a pod");

    // The branch moved to a commit on top of the one the run checked, holding what the step made;
    // the scheduler pushed it from its own mirror.
    java.time.Clock clock = java.time.Clock.systemUTC();
    String written =
        new SnapshotReader(own.client, StorageCache.at(shape.dir().resolve("read"), clock), clock)
            .read(own.address, SnapshotReader.Packs.NONE)
            .liveRefs()
            .get("refs/heads/feature")
            .target();
    assertFalse(written.equals(sha), "the branch did not move");
    Git mirror =
        Mirror.open(
                StorageCache.at(shape.dir().resolve("scheduler-1/cache"), clock).dir(),
                shape.runner().did(),
                own.key())
            .git();
    assertEquals(sha, mirror.revParse(written + "^").strip());
    assertEquals("made at " + sha, mirror.text("show", written + ":gen/out.txt").strip());
    assertEquals("gen/out.txt", mirror.text("diff", "--name-only", sha, written).strip());
  }

  @Test
  void aTrustedPullsPassRunAsAPodIsTakenByThePushThatMergesIt() throws Exception {
    // The pull comes after this repository's first pass, which takes open pulls as they are.
    Checks.await(
        Duration.ofSeconds(90),
        "the first pass of " + reuse.label(),
        () -> Files.readString(reconciler.log()).contains("/reuse: first pass"));
    // The owner's own pull, whose head contains main: checked as itself, so the merge keeps its
    // tree, and trusted, into the default branch, of a workflow with no secret: its pass is kept.
    reuse.git("checkout", "-q", "-b", "feature", "main");
    String head = reuse.commit(Map.of("a.txt", "a\n"));
    reuse.push("feature");
    reuse.git("checkout", "-q", "main");
    long podsBefore = podsMade();
    PullAuthor author = new PullAuthor(reuse);
    String pull = author.open(reuse, "main", reuse, "feature");
    CheckRecord passed = ended(pull);
    String pullLog = Checks.log(shape, passed);
    assertEquals(CheckStatus.SUCCESS, passed.status(), pullLog);
    assertEquals(1, podsMade() - podsBefore, "the pull ran in a pod");

    // Merged as the owner's tools merge: the pull marked merged, then main pushed. Closed, the
    // pull does not run again at its moved base.
    author.state(reuse, pull, "merged");
    reuse.git("merge", "-q", "--ff-only", "feature");
    reuse.push("main");
    CheckRecord push =
        CheckRecord.fromJson(
            Checks.awaitOne(
                    shape,
                    Duration.ofSeconds(180),
                    c ->
                        c.pull() == null
                            && "refs/heads/main".equals(c.ref())
                            && head.equals(c.commit())
                            && c.status().ended())
                .value());
    String pushLog = Checks.log(shape, push);
    assertEquals(CheckStatus.SUCCESS, push.status(), pushLog);
    String pullCheck =
        "at://"
            + shape.runner().did()
            + "/dev.knotless.check/"
            + CheckKeys.pull(
                reuse.account.did(), reuse.key(), pull, head, passed.baseCommit(), "reuse");
    assertEquals("took the pass of " + pullCheck + " (" + pull + ") at the same tree", push.note());
    assertEquals(nonce(pullLog), nonce(pushLog), "the pull's log, copied: nothing ran again");
    assertEquals(1, podsMade() - podsBefore, "no pod for the push");
  }

  private static String nonce(String log) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("nonce=([0-9a-f]{16})").matcher(log);
    assertTrue(m.find(), log);
    return m.group(1);
  }

  /** The one ended check of pull {@code uri}. */
  private static CheckRecord ended(String uri) throws Exception {
    return CheckRecord.fromJson(
        Checks.awaitOne(
                shape, Duration.ofSeconds(180), c -> uri.equals(c.pull()) && c.status().ended())
            .value());
  }

  /** Commits {@code files} on a new branch off main, pushes it, and goes back to main. */
  private static String branch(String name, Map<String, String> files) throws Exception {
    owner.git("checkout", "-q", "-b", name, "main");
    String sha = owner.commit(files);
    owner.push(name);
    owner.git("checkout", "-q", "main");
    return sha;
  }

  /** How many pods were made in the runs' namespace so far, as the API server was asked. */
  private static long podsMade() {
    return api.requests().stream()
        .filter(r -> r.startsWith("POST /api/v1/namespaces/" + NAMESPACE + "/pods"))
        .filter(r -> !r.contains("/exec"))
        .count();
  }
}
