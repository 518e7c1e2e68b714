package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.storage.secrets.RunnerKeyRecord;
import dev.knotless.testing.Account;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The distributed shape as a hosted runner: the operator lists no repository, the reconcilers find
 * those that name the runner (the appview's listRepos at start, a repository record on the event
 * stream after) and keep them in PostgreSQL, where the ingester takes them from; an owner's secret
 * sealed to the runner's key, mounted as a file on the scheduler, reaches a step of a run pod and
 * is masked in its log.
 */
class HostedRunnerIT {
  static final String VALUE = "sealed-d15t-9f2a7c";

  static final String HELLO =
      """
      on: {push: {}}
      steps:
        - name: hello
          run: echo "hello from $KNOTLESS_RUN_REPO"
      """;

  static final String DEPLOY =
      """
      on: {push: {}}
      secrets: [TOKEN]
      steps:
        - name: use
          run: echo "token is ${TOKEN:-absent}"; echo "again $TOKEN"
      """;

  private static LocalDistributed shape;
  private static HarnessAppview appview;
  private static OwnerRepo early;
  private static String earlySha;
  private static ServiceProcess reconciler;
  private static ServiceProcess ingester;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("hosted-runner-it");
    shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
    appview = HarnessAppview.start(shape.pds().pdsUrl(), shape.pds().plcUrl());
    String runner = shape.runner().did();
    appview.setDefaultRunner(runner);
    // Made before the services start, naming the runner, listed by no operator.
    early =
        new OwnerRepo(
                shape.pds().createAccount("early"),
                shape.pds().pdsUrl(),
                "early",
                dir.resolve("owners/early"))
            .namingRunners(() -> List.of(runner));
    early.commit(Map.of(".knotless/workflows/hello.yml", HELLO));
    earlySha = early.push("main");

    shape
        .withAppview(appview.url(), true)
        .withSecretsKey(dir.resolve("runner-key/secrets-key.json"));
    Files.createDirectories(dir.resolve("runner-key"));
    shape.startCheckWriter();
    // The ingester first: with nothing listed yet it waits, ready, rather than failing.
    ingester = shape.startIngester();
    reconciler = shape.startReconciler();
    shape.startScheduler();
  }

  @AfterAll
  static void stop() {
    if (shape != null) {
      shape.close();
    }
    if (appview != null) {
      appview.close();
    }
  }

  @Test
  void aRepositoryNamingTheRunnerThatNoOneListedRunsItsDefaultBranchTipOnceFound()
      throws Exception {
    CheckRecord check =
        CheckRecord.fromJson(
            Checks.awaitOne(
                    shape,
                    Duration.ofSeconds(120),
                    c -> c.status().ended() && c.commit().equals(earlySha))
                .value());
    assertEquals(CheckStatus.SUCCESS, check.status(), check.toString());
    assertTrue(
        Checks.log(shape, check).contains("hello from " + early.account.did() + "/early"),
        Checks.log(shape, check));
    assertTrue(
        Files.readString(ingester.log()).contains("No reconciler has made the list")
            || Files.readString(ingester.log()).contains("No repository is watched"),
        "the ingester said it was waiting for repositories");
  }

  @Test
  void aRepositoryCreatedAfterTheServicesStartedRunsItsFirstPushWithTheOwnersSealedSecretMasked()
      throws Exception {
    String runner = shape.runner().did();
    // The scheduler, which runs steps, holds the key: it made the file, 0600, and published it.
    XrpcClient reader = XrpcClient.create(shape.pds().pdsUrl());
    Checks.await(
        Duration.ofSeconds(60),
        "the runner's key published",
        () -> RunnerKeyRecord.read(reader, runner).isPresent());
    Path key = shape.dir().resolve("runner-key/secrets-key.json");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));

    Account owner = shape.pds().createAccount("late");
    String label = owner.handle() + "/app";
    String created = knotless(owner, "", "create", label);
    assertTrue(created.contains("its checks are run by " + runner), created);
    String sealed =
        knotless(owner, VALUE + "\n", "secret", "set", label, "TOKEN", "--runner", runner);
    assertTrue(sealed.contains("sealed TOKEN to " + runner), sealed);
    assertFalse(sealed.contains(VALUE));

    OwnerRepo app =
        new OwnerRepo(owner, shape.pds().pdsUrl(), "app", shape.dir().resolve("owners/app"));
    app.commit(Map.of(".knotless/workflows/deploy.yml", DEPLOY));
    long t0 = System.nanoTime();
    String sha = app.push("main");
    CheckRecord check =
        CheckRecord.fromJson(
            Checks.awaitOne(
                    shape,
                    Duration.ofSeconds(120),
                    c -> c.status().ended() && c.commit().equals(sha))
                .value());
    System.out.printf(
        "[HostedRunnerIT] first push of a repository created after start to its check: %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
    assertEquals(CheckStatus.SUCCESS, check.status(), check.toString());
    String log = Checks.log(shape, check);
    assertTrue(log.contains("token is ***"), log);
    assertTrue(log.contains("again ***"), log);
    assertFalse(log.contains(VALUE), log);
    for (ServiceProcess s : shape.services("")) {
      assertFalse(Files.readString(s.log()).contains(VALUE), s + " logged the secret");
    }
    assertFalse(Files.readString(shape.dir().resolve("repos.txt")).contains("app"));
  }

  /** Runs {@code knotless <args>} as {@code owner} with the appview set; returns its output. */
  private static String knotless(Account owner, String stdin, String... args) {
    return OwnerCli.run(
        shape, owner, Map.of("KNOTLESS_APPVIEW", appview.url().toString()), stdin, args);
  }
}
