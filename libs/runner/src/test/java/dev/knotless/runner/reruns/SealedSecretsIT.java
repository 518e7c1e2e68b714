package dev.knotless.runner.reruns;

import static dev.knotless.runner.reruns.Stage.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.seal.SealBinding;
import dev.knotless.atproto.seal.SecretSeal;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.engine.KeyCommand;
import dev.knotless.storage.secrets.RunnerKeyRecord;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets an owner seals with {@code knotless secret set} to the runner's published key, left at
 * the harness appview, opened by the runner for the runs that may have them, against the real PDS.
 */
@WithPds
class SealedSecretsIT {

  static final String VALUE = "sealed-7c3b9a1e5d";

  static final String DEPLOY =
      """
      on: {push: {}}
      secrets: [TOKEN]
      steps:
        - name: use
          run: echo "token is ${TOKEN:-absent}"; echo "again $TOKEN"
      """;

  static final String PLAIN =
      """
      on: {push: {}}
      steps:
        - name: plain
          run: echo "plain sees ${TOKEN:-absent}"
      """;

  @Test
  void aSecretSealedByTheOwnerReachesOnlyRunsThatMayHaveItAndIsMaskedInTheLog(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        Stage s = new Stage(pds, tmp, false)) {
      s.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      s.start();
      String runner = s.runnerAccount.did();

      // The first start made the key file, readable by the runner's user alone, and published it.
      Path keyFile = tmp.resolve("secrets-key.json");
      assertEquals(
          "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)));
      String published = RunnerKeyRecord.read(s.reader, runner).orElseThrow();
      assertTrue(published.startsWith("did:key:zDn"), published);

      String said =
          s.knotlessWithInput(
              VALUE + "\n",
              "secret",
              "set",
              s.label(),
              "TOKEN",
              "--runner",
              runner,
              "--ref",
              "main");
      assertTrue(said.contains("sealed TOKEN to " + runner), said);
      assertFalse(said.contains(VALUE));
      String listed = s.knotless("secret", "list", s.label());
      assertTrue(listed.startsWith("TOKEN\t" + runner + "\tmain\t"), listed);
      assertFalse(listed.contains(VALUE));
      // The appview holds ciphertext only.
      for (ObjectNode v : appview.secrets().all()) {
        assertFalse(v.toString().contains(VALUE), v.toString());
      }

      String sha =
          s.commit(
              Map.of(
                  ".knotless/workflows/deploy.yml",
                  DEPLOY,
                  ".knotless/workflows/plain.yml",
                  PLAIN));
      s.push("main");
      s.git("checkout", "-q", "-b", "feat");
      s.push("feat");

      CheckRecord onMain = s.awaitEnded(MAIN, sha, "deploy");
      assertEquals(CheckStatus.SUCCESS, onMain.status());
      String mainLog = s.log(onMain);
      assertTrue(mainLog.contains("token is ***"), mainLog);
      assertTrue(mainLog.contains("again ***"), mainLog);
      assertFalse(mainLog.contains(VALUE), mainLog);

      String plainLog = s.log(s.awaitEnded(MAIN, sha, "plain"));
      assertTrue(plainLog.contains("plain sees absent"), plainLog);

      CheckRecord onFeat = s.awaitEnded("refs/heads/feat", sha, "deploy");
      String featLog = s.log(onFeat);
      assertTrue(
          featLog.contains("==> TOKEN is not granted to " + s.label() + " at refs/heads/feat"),
          featLog);
      assertTrue(featLog.contains("token is absent"), featLog);
      assertFalse(featLog.contains(VALUE), featLog);

      // Removed, it is no longer given.
      assertTrue(
          s.knotless("secret", "rm", s.label(), "TOKEN", "--runner", runner).contains("removed"));
      s.git("checkout", "-q", "main");
      String next = s.commit(Map.of("README.md", "again\n"));
      s.push("main");
      String after = s.log(s.awaitEnded(MAIN, next, "deploy"));
      assertTrue(after.contains("token is absent"), after);
    }
  }

  @Test
  void theSameCiphertextReplayedForAnotherRepositoryNameOrRunnerDoesNotOpenAndTheCheckSaysWhich(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        Stage s = new Stage(pds, tmp, false)) {
      s.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      s.start();
      String runner = s.runnerAccount.did();
      String owner = s.owner.did();
      String key = s.key();
      String didKey = RunnerKeyRecord.read(s.reader, runner).orElseThrow();

      // The owner seals TOKEN properly; the appview then lists copies of its bytes elsewhere.
      s.knotlessWithInput(VALUE, "secret", "set", s.label(), "TOKEN", "--runner", runner);
      ObjectNode real = appview.secrets().all().get(0);
      ObjectNode asOther = real.deepCopy().put("name", "OTHER");
      appview.secrets().plant(asOther);
      // Sealed to this runner's key, but for another repository of the owner, or another runner.
      plant(
          appview,
          owner,
          key,
          runner,
          "ELSEWHERE",
          didKey,
          new SealBinding(owner, "3zzzzzzzzzzzz", runner, "ELSEWHERE", List.of()));
      plant(
          appview,
          owner,
          key,
          runner,
          "FOROTHER",
          didKey,
          new SealBinding(owner, key, "did:plc:someotherrunner", "FOROTHER", List.of()));

      String wf =
          """
          on: {push: {}}
          secrets: [TOKEN, OTHER, ELSEWHERE, FOROTHER]
          steps:
            - name: show
              run: echo "T=${TOKEN:-absent} O=${OTHER:-absent} E=${ELSEWHERE:-absent} F=${FOROTHER:-absent}"
          """;
      String sha = s.commit(Map.of(".knotless/workflows/w.yml", wf));
      s.push("main");
      CheckRecord c = s.awaitEnded(MAIN, sha, "w");
      String log = s.log(c);
      assertTrue(log.contains("T=*** O=absent E=absent F=absent"), log);
      for (String name : List.of("OTHER", "ELSEWHERE", "FOROTHER")) {
        assertTrue(
            log.contains("==> " + name + ", sealed by the owner, could not be used"), name + log);
        assertTrue(log.contains("==> " + name + " is not granted to " + s.label()), name + log);
      }
      assertFalse(log.contains(VALUE), log);

      // An appview that does not answer makes a check that needs an owner's secret error.
      appview.setDown(true);
      String sha2 = s.commit(Map.of("README.md", "down\n"));
      s.push("main");
      CheckRecord down = s.awaitEnded(MAIN, sha2, "w");
      assertEquals(CheckStatus.ERROR, down.status());
      assertTrue(down.note().contains("sealed secrets cannot be read"), down.note());
    }
  }

  @Test
  void aRunnerKeyRecordThatDoesNotParseIsRefusedByTheOwnerToolsNamingIt(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        Stage s = new Stage(pds, tmp, false)) {
      s.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      String runner = s.runnerAccount.did();
      String[] outErr = new String[2];
      assertEquals(
          1, s.knotlessExit(VALUE, outErr, "secret", "set", s.label(), "T", "--runner", runner));
      assertTrue(outErr[1].contains("publishes no dev.knotless.runnerKey record"), outErr[1]);

      dev.knotless.atproto.XrpcClient asRunner =
          dev.knotless.atproto.XrpcClient.create(pds.pdsUrl());
      asRunner.login(s.runnerAccount.handle(), s.runnerAccount.password());
      ObjectNode bad = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
      // a secp256k1 did:key: a key, but not one HPKE's P-256 suite can seal to
      bad.put("key", "did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme");
      bad.put("createdAt", "2026-12-01T00:00:00Z");
      asRunner.putRecord(
          runner, RunnerKeyRecord.COLLECTION, "self", bad, dev.knotless.atproto.Swap.none());
      assertEquals(
          1, s.knotlessExit(VALUE, outErr, "secret", "set", s.label(), "T", "--runner", runner));
      assertTrue(outErr[1].contains("runnerKey record cannot be sealed to"), outErr[1]);
      assertFalse(outErr[1].contains(VALUE));
      assertTrue(appview.secrets().all().isEmpty());
    }
  }

  @Test
  void aRotatedKeyIsPublishedWhileWhatWasSealedToTheOldOneStillOpensUntilRetired(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        Stage s = new Stage(pds, tmp, false)) {
      s.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      s.start("--sweep", "2");
      String runner = s.runnerAccount.did();
      String first = RunnerKeyRecord.read(s.reader, runner).orElseThrow();
      s.knotlessWithInput(VALUE, "secret", "set", s.label(), "TOKEN", "--runner", runner);

      String rotated = keys(tmp, "rotate");
      assertEquals(2, rotated.lines().count(), rotated);
      String second = rotated.lines().findFirst().orElseThrow().split("\t")[0];
      Stage.await(
          "the rotated key published",
          () -> {
            try {
              return RunnerKeyRecord.read(s.reader, runner).orElseThrow().equals(second);
            } catch (Exception e) {
              return false;
            }
          });
      // Still sealed to the first key: it opens.
      String sha1 = s.commit(Map.of(".knotless/workflows/deploy.yml", DEPLOY));
      s.push("main");
      assertTrue(s.log(s.awaitEnded(MAIN, sha1, "deploy")).contains("token is ***"));
      assertTrue(appview.secrets().all().get(0).path("recipient").asText().equals(first));

      // Sealed again (to the new key), then the old key retired: it still opens.
      s.knotlessWithInput(VALUE, "secret", "set", s.label(), "TOKEN", "--runner", runner);
      assertEquals(second, appview.secrets().all().get(0).path("recipient").asText());
      assertEquals(1, keys(tmp, "retire").lines().count());
      String sha2 = s.commit(Map.of("README.md", "two\n"));
      s.push("main");
      String log = s.log(s.awaitEnded(MAIN, sha2, "deploy"));
      assertTrue(log.contains("token is ***"), log);
      assertFalse(log.contains(VALUE), log);
    }
  }

  private static void plant(
      HarnessAppview appview,
      String owner,
      String key,
      String runner,
      String name,
      String didKey,
      SealBinding bound) {
    SecretSeal.Sealed sealed = SecretSeal.seal(didKey, bound, VALUE);
    ObjectNode v = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
    v.put("did", owner).put("key", key).put("runner", runner).put("name", name);
    v.putArray("refs");
    v.put("recipient", sealed.recipient()).put("enc", sealed.enc());
    v.put("ciphertext", sealed.ciphertext()).put("createdAt", "2026-12-01T00:00:00Z");
    appview.secrets().plant(v);
  }

  private static String keys(Path tmp, String action) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        KeyCommand.run(
            List.of(action, "--state", tmp.resolve("state.json").toString()),
            Map.of(),
            Clock.systemUTC(),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8);
  }
}
