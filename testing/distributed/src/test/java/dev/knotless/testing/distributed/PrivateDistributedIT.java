package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceClient;
import dev.knotless.atproto.space.XrpcSpaceClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.Account;
import dev.knotless.testing.infra.AppviewRunOutputs;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.HarnessOAuth;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A private repository in the distributed shape, each service its own process, with the reference
 * PDS, the harness's space host and the harness appview: the reconciler reads the repository in its
 * owner's space as a member, the scheduler runs its push in a pod, and the check-writer files the
 * check and its log into the runner's repo in the space, where the owner and the runner read them;
 * the runner's public account holds nothing of it. A write is heard through the appview though the
 * poll is five minutes; with the appview down, a poll of five seconds finds it; and a runner
 * removed from the space leaves the repository, saying so.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PrivateDistributedIT {
  static final String CI =
      """
      on: {push: {refs: [main]}}
      steps:
        - name: hello
          run: echo "hello from a private $KNOTLESS_RUN_REPO"
      """;

  /** Far below the first reconciler's poll of 300 s: a write heard through the appview. */
  private static final Duration PROMPT = Duration.ofSeconds(45);

  private static final String HEARD = "the appview passes on writes in private repositories";
  private static final String FELL_BACK =
      "awaiting private repositories' writes through the appview failed";

  private static LocalDistributed shape;
  private static HarnessSpaceHost host;
  private static HarnessAppview appview;
  private static OwnerRepo owner;
  private static ServiceProcess reconciler;
  private static String key;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("private-distributed-it");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    host = HarnessSpaceHost.start(shape.pds().plcUrl());
    appview = HarnessAppview.startHearingSpaces(shape.pds().pdsUrl(), shape.pds().plcUrl());
    // The appview takes word of writes from this host only, and passes it to invited runners.
    appview.hearSpacesFrom(host.did());
    appview.checkMembersAt(host.url());
    Account account = shape.pds().createAccount("privown");
    OwnerCli.run(
        shape,
        account,
        true,
        Map.of(
            "KNOTLESS_SPACE_HOST", host.url().toString(),
            "KNOTLESS_APPVIEW", appview.url().toString()),
        "",
        "create",
        account.handle() + "/secret",
        "--private",
        "--runner",
        shape.runner().did());
    owner =
        OwnerRepo.inSpace(account, shape.pds(), host.url(), "secret", dir.resolve("owners/secret"));
    owner.commit(Map.of(".knotless/workflows/ci.yml", CI));
    owner.push("main");
    key = owner.key();
    shape.watch(account.did(), key, "secret");
    shape.withSpaceHost(host.url()).withAppview(appview.url(), appview.did(), false);
    shape.startCheckWriter();
    reconciler = shape.startReconciler(Map.of("knotless.reconciler.poll", "300s"));
    shape.startScheduler();
  }

  @AfterAll
  static void stop() throws Exception {
    if (shape != null) {
      shape.close();
    }
    if (appview != null) {
      appview.close();
    }
    if (host != null) {
      host.close();
    }
  }

  @Test
  @Order(1)
  void aPushHeardThroughTheAppviewRunsInAPodAndIsFiledOnlyInTheSpace() throws Exception {
    String space = owner.account.did() + "/secret";
    Checks.await(
        Duration.ofSeconds(120),
        "the reconciler reading the repository in its space and hearing the appview",
        () -> {
          String log = log(reconciler);
          return log.contains("private; read in the space " + space + " as a member")
              && log.contains("the space " + space + " tells " + appview.did())
              && log.contains(HEARD);
        });

    long took = pushAndTime("notified.txt");
    System.out.printf(
        "[PrivateDistributedIT] private push to check in the space, heard through the appview"
            + " (poll 300 s): %d ms%n",
        took);
    assertTrue(took < PROMPT.toMillis(), "checked in " + took + " ms, not waiting for the poll");
    assertTrue(host.notifications()[0] >= 1, "the host told the appview");

    CheckRecord check = checkOf(owner.spaces, owner.head());
    assertEquals(CheckStatus.SUCCESS, check.status(), check.toString());
    String ownersRead =
        new String(
            owner.spaces.getBlob(owner.space, shape.runner().did(), check.log().cid(), 1 << 20),
            StandardCharsets.UTF_8);
    assertTrue(ownersRead.startsWith("pod knotless-"), "the run went to a pod: " + ownersRead);
    assertTrue(
        ownersRead.contains("hello from a private " + owner.account.did() + "/secret"), ownersRead);

    // The runner reads it too, as a member.
    XrpcClient runnerPds = HarnessOAuth.client(shape.pds(), shape.runner());
    SpaceClient asRunner =
        new XrpcSpaceClient(XrpcClient.create(host.url()), runnerPds, Clock.systemUTC());
    assertEquals(CheckStatus.SUCCESS, checkOf(asRunner, owner.head()).status());
    assertTrue(host.blobs(space, shape.runner().did()) >= 1, "the log is a blob in the space");

    // The check-writer sent its live output naming the space: a member reads it, no one else.
    String rkey = CheckKeys.push(owner.account.did(), key, "refs/heads/main", owner.head(), "ci");
    String checkUri = "at://" + shape.runner().did() + "/dev.knotless.check/" + rkey;
    Checks.await(
        Duration.ofSeconds(30),
        "the run's live output at the appview",
        () ->
            appview.runOutputs().stream().anyMatch(p -> p.path("check").asText().equals(checkUri)));
    for (var piece : appview.runOutputs()) {
      if (piece.path("check").asText().equals(checkUri)) {
        assertEquals(space, piece.path("space").asText(), "each piece names its space");
      }
    }
    String credential = host.credential(shape.pds(), owner.account, space);
    var read = AppviewRunOutputs.read(appview.url(), checkUri, credential);
    assertEquals(200, read.statusCode(), read.body());
    assertTrue(read.body().contains("hello from a private"), read.body());
    var anonymous = AppviewRunOutputs.read(appview.url(), checkUri, null);
    assertEquals(401, anonymous.statusCode(), anonymous.body());
    assertFalse(anonymous.body().contains("hello from a private"), anonymous.body());

    // A stranger reading the runner's public repo sees nothing of it: no check, no blob, no
    // minutes.
    XrpcClient stranger = XrpcClient.create(shape.pds().pdsUrl());
    assertEquals(0, Checks.all(shape).size(), "no check in the runner's public account");
    assertEquals(
        0,
        stranger
            .query("com.atproto.sync.listBlobs", Map.of("did", shape.runner().did()))
            .path("cids")
            .size(),
        "no blob in the runner's public account");
    assertTrue(
        stranger
            .listRecords(shape.runner().did(), "dev.knotless.minutes", 100, null, false)
            .records()
            .isEmpty(),
        "no public minutes record of the private run");
    // Its steps count as the owner's private minutes.
    Checks.await(
        Duration.ofSeconds(30),
        "the run's minutes counted as private",
        () -> usedMillis("repo_used_private") > 0);
    assertEquals(0, usedMillis("repo_used"), "none counted as public minutes");
  }

  @Test
  @Order(2)
  void withTheAppviewDownAPollOfFiveSecondsFindsThePush() throws Exception {
    reconciler.stop();
    reconciler = shape.startReconciler(Map.of("knotless.reconciler.poll", "5s"));
    Checks.await(
        Duration.ofSeconds(120),
        "the new reconciler hearing",
        () -> log(reconciler).contains(HEARD));
    appview.setDown(true);
    Checks.await(
        Duration.ofSeconds(60),
        "the reconciler to fall back",
        () -> log(reconciler).contains(FELL_BACK));
    long took = pushAndTime("polled.txt");
    System.out.printf(
        "[PrivateDistributedIT] private push to check in the space, the appview down, found by a"
            + " 5 s poll: %d ms%n",
        took);
    assertTrue(took < 5_000 + PROMPT.toMillis(), "checked in " + took + " ms");
    assertEquals(0, Checks.all(shape).size(), "still nothing in the runner's public account");
  }

  @Test
  @Order(3)
  void aRunnerRemovedFromTheSpaceLeavesTheRepositorySayingWhy() throws Exception {
    owner.spaces.removeMember(owner.space, shape.runner().did());
    Checks.await(
        Duration.ofSeconds(60),
        "the reconciler leaving the repository",
        () ->
            log(reconciler)
                .contains(
                    "the runner is no longer a member of the private repository's space "
                        + owner.space
                        + "; no longer watching it"));
    owner.commit(Map.of("after.txt", "after\n"));
    String sha = owner.push("main");
    // Two polls' worth: nothing may be filed for it, in the space or in public.
    Thread.sleep(12_000);
    assertFalse(
        owner
            .spaces
            .getRecord(
                owner.space,
                shape.runner().did(),
                CheckRecord.COLLECTION,
                CheckKeys.push(owner.account.did(), key, "refs/heads/main", sha, "ci"))
            .isPresent(),
        "no check of a push after the runner left");
    assertEquals(0, Checks.all(shape).size(), "nothing in the runner's public account");
  }

  @Test
  @Order(4)
  void withDiscoverAnInvitedPrivateRepositoryIsFoundAndItsTipRun() throws Exception {
    // Invites are read at the appview: up again after the second test.
    appview.setDown(false);
    reconciler.stop();
    reconciler =
        shape.startReconciler(
            Map.of(
                "knotless.reconciler.poll", "5s",
                "knotless.reconciler.sweep", "2s",
                "knotless.reconciler.discover", "true"));
    // Made after every reconciler started, and listed nowhere: only the invite says where it is.
    OwnerCli.run(
        shape,
        owner.account,
        true,
        Map.of(
            "KNOTLESS_SPACE_HOST", host.url().toString(),
            "KNOTLESS_APPVIEW", appview.url().toString()),
        "",
        "create",
        owner.account.handle() + "/invited",
        "--private",
        "--runner",
        shape.runner().did());
    OwnerRepo invited =
        OwnerRepo.inSpace(
            owner.account,
            shape.pds(),
            host.url(),
            "invited",
            shape.dir().resolve("owners/invited"));
    invited.commit(Map.of(".knotless/workflows/ci.yml", CI));
    String tip = invited.push("main");
    String rkey = CheckKeys.push(owner.account.did(), invited.key(), "refs/heads/main", tip, "ci");
    CheckRecord[] seen = {null};
    Checks.await(
        Duration.ofSeconds(180),
        "the invited repository's tip checked in its space",
        () -> {
          seen[0] =
              invited
                  .spaces
                  .getRecord(invited.space, shape.runner().did(), CheckRecord.COLLECTION, rkey)
                  .map(r -> CheckRecord.fromJson(r.value()))
                  .orElse(null);
          return seen[0] != null && seen[0].status().ended();
        });
    assertEquals(CheckStatus.SUCCESS, seen[0].status(), seen[0].toString());
    assertTrue(
        log(reconciler).contains("private; read in the space " + invited.space + " as a member"),
        "read in its space");
    assertEquals(0, Checks.all(shape).size(), "nothing in the runner's public account");
  }

  /**
   * Commits {@code file}, pushes, and waits for its check in the space to end.
   *
   * @return the milliseconds from the push's end to the check's first record in the space
   */
  private static long pushAndTime(String file) throws Exception {
    owner.commit(Map.of(file, file + "\n"));
    String sha = owner.push("main");
    long pushed = System.nanoTime();
    long[] filed = {0};
    Checks.await(
        Duration.ofSeconds(180),
        "the check of " + file + " ended in the space",
        () -> {
          CheckRecord c = checkOrNull(owner.spaces, sha);
          if (c != null && filed[0] == 0) {
            filed[0] = System.nanoTime();
          }
          return c != null && c.status().ended();
        });
    return (filed[0] - pushed) / 1_000_000;
  }

  private static CheckRecord checkOf(SpaceClient reader, String sha) throws Exception {
    CheckRecord c = checkOrNull(reader, sha);
    assertTrue(c != null, "a check of " + sha + " in the space");
    return c;
  }

  private static CheckRecord checkOrNull(SpaceClient reader, String sha) throws Exception {
    String rkey = CheckKeys.push(owner.account.did(), key, "refs/heads/main", sha, "ci");
    return reader
        .getRecord(owner.space, shape.runner().did(), CheckRecord.COLLECTION, rkey)
        .map(r -> CheckRecord.fromJson(r.value()))
        .orElse(null);
  }

  /** The owner's repository's milliseconds in {@code table}, as the scheduler keeps them. */
  private static long usedMillis(String table) throws Exception {
    try (var c =
            java.sql.DriverManager.getConnection(
                shape.postgres().jdbcUrl(), "postgres", "postgres");
        var s =
            c.prepareStatement(
                "select coalesce(sum(millis), 0) from " + table + " where repo = ?")) {
      s.setString(1, owner.account.did() + "/" + key);
      try (var r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  private static String log(ServiceProcess s) throws java.io.IOException {
    return Files.readString(s.log());
  }
}
