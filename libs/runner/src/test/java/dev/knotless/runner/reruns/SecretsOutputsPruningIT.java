package dev.knotless.runner.reruns;

import static dev.knotless.runner.reruns.Stage.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Secrets granted by ref and masked, outputs as blobs, and pruning, against the real PDS. */
@WithPds
class SecretsOutputsPruningIT {

  static final String TOKEN = "tok-9f8e7d6c5b4a";

  static final String DEPLOY =
      """
      on: {push: {}}
      secrets: [TOKEN]
      steps:
        - name: use
          run: echo "token is ${TOKEN:-absent}"; echo "$TOKEN" | rev | rev
      """;

  static final String PLAIN =
      """
      on: {push: {}}
      steps:
        - name: plain
          run: echo plain
      """;

  @Test
  void aSecretGrantedOnlyOnMainReachesMainButNotABranchAndNeverReachesALog(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Stage s = new Stage(pds, tmp, false)) {
      Path secrets = tmp.resolve("secrets.json");
      Files.writeString(
          secrets,
          "{\"%s\": {\"TOKEN\": {\"value\": \"%s\", \"refs\": [\"main\"]}}}"
              .formatted(s.label(), TOKEN));
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      s.start("--secrets", secrets.toString());
      String sha = s.commit(Map.of(".knotless/workflows/deploy.yml", DEPLOY));
      s.push("main");
      s.git("checkout", "-q", "-b", "feat");
      s.push("feat");

      CheckRecord onMain = s.awaitEnded(MAIN, sha, "deploy");
      assertEquals(CheckStatus.SUCCESS, onMain.status());
      String mainLog = s.log(onMain);
      assertTrue(mainLog.contains("token is ***"), mainLog);
      assertFalse(mainLog.contains(TOKEN), mainLog);

      CheckRecord onFeat = s.awaitEnded("refs/heads/feat", sha, "deploy");
      String featLog = s.log(onFeat);
      assertTrue(
          featLog.contains("==> TOKEN is not granted to " + s.label() + " at refs/heads/feat"),
          featLog);
      assertTrue(featLog.contains("token is absent"), featLog);
      assertFalse(featLog.contains(TOKEN), featLog);
    }
  }

  @Test
  void aMalformedSecretsFileErrorsTheCheckThatAsksForOneAndNoOther(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Stage s = new Stage(pds, tmp, false)) {
      Path secrets = tmp.resolve("secrets.json");
      Files.writeString(secrets, "{\"" + s.label() + "\": {\"TOKEN\": [\"" + TOKEN + "\"]}");
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      s.start("--secrets", secrets.toString());
      String sha =
          s.commit(
              Map.of(
                  ".knotless/workflows/deploy.yml",
                  DEPLOY,
                  ".knotless/workflows/plain.yml",
                  PLAIN));
      s.push("main");
      CheckRecord deploy = s.awaitEnded(MAIN, sha, "deploy");
      assertEquals(CheckStatus.ERROR, deploy.status());
      assertTrue(deploy.note().contains("secrets file"), deploy.note());
      assertFalse(deploy.note().contains(TOKEN), deploy.note());
      assertFalse(s.log(deploy).contains(TOKEN));
      assertEquals(CheckStatus.SUCCESS, s.awaitEnded(MAIN, sha, "plain").status());
    }
  }

  @Test
  void imagesLeftInOutputsBecomeTheCheckOutputsWithSameBytesUploadedOnce(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (Stage s = new Stage(pds, tmp, false)) {
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      s.start();
      String wf =
          """
          on: {push: {}}
          steps:
            - name: shots
              run: |
                printf 'PNG-one' > "$KNOTLESS_RUN_OUTPUTS/a.png"
                printf 'PNG-one' > "$KNOTLESS_RUN_OUTPUTS/b.png"
                printf 'PNG-two' > "$KNOTLESS_RUN_OUTPUTS/c.png"
                printf 'not an image' > "$KNOTLESS_RUN_OUTPUTS/notes.txt"
          """;
      String sha = s.commit(Map.of(".knotless/workflows/shots.yml", wf));
      s.push("main");
      CheckRecord c = s.awaitEnded(MAIN, sha, "shots");
      assertEquals(CheckStatus.SUCCESS, c.status());
      assertEquals(3, c.outputs().size(), c.outputs().toString());
      Set<String> cids = new HashSet<>();
      for (JsonNode o : c.outputs()) {
        assertEquals("dev.knotless.check#imageOutput", o.path("$type").asText());
        assertEquals("image/png", o.path("image").path("mimeType").asText(), o.toString());
        cids.add(o.path("image").path("ref").path("$link").asText());
      }
      assertEquals(2, cids.size(), c.outputs().toString());
      JsonNode a = c.outputs().get(0);
      assertEquals("a.png", a.path("name").asText());
      assertEquals(
          "PNG-one",
          new String(
              s.reader.getBlob(
                  s.runnerAccount.did(), a.path("image").path("ref").path("$link").asText())));
    }
  }

  @Test
  void pruningDeletesExactlyTheChecksTheRulesSayAndKeepsTheRest(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (Stage s = new Stage(pds, tmp, false)) {
      s.commit(Map.of("README.md", "hi\n"));
      s.push("main");
      XrpcClient runner = XrpcClient.create(pds.pdsUrl());
      runner.login(s.runnerAccount.handle(), s.runnerAccount.password());
      Instant now = Instant.now();
      String c1 = "1".repeat(40);
      String c2 = "2".repeat(40);
      String c3 = "3".repeat(40);
      // Old main runs: the newest of its workflow stays, an older one goes.
      seed(s, runner, MAIN, c1, "ci", now.minus(Duration.ofDays(40)), CheckStatus.SUCCESS);
      seed(s, runner, MAIN, c2, "ci", now.minus(Duration.ofDays(35)), CheckStatus.SUCCESS);
      // A main run ended 10 days ago stays (under --keep-checks 30); one 31 days old goes.
      seed(s, runner, MAIN, c3, "lint", now.minus(Duration.ofDays(10)), CheckStatus.SUCCESS);
      seed(s, runner, MAIN, c2, "lint", now.minus(Duration.ofDays(31)), CheckStatus.FAILURE);
      // A gone branch's run goes; one ended an hour ago stays; a running one stays.
      seed(
          s,
          runner,
          "refs/heads/gone",
          c1,
          "ci",
          now.minus(Duration.ofDays(2)),
          CheckStatus.SUCCESS);
      seed(
          s,
          runner,
          "refs/heads/gone",
          c2,
          "ci",
          now.minus(Duration.ofHours(1)),
          CheckStatus.SUCCESS);
      seed(
          s,
          runner,
          "refs/heads/gone",
          c3,
          "ci",
          now.minus(Duration.ofDays(3)),
          CheckStatus.RUNNING);
      String k = s.key();
      String d = s.owner.did();
      Set<String> expectGone =
          Set.of(
              CheckKeys.push(d, k, MAIN, c1, "ci"),
              CheckKeys.push(d, k, MAIN, c2, "lint"),
              CheckKeys.push(d, k, "refs/heads/gone", c1, "ci"));
      Set<String> before = s.checks().keySet();
      assertEquals(7, before.size());

      s.start();
      Stage.await(
          "pruning",
          () -> {
            try {
              return s.checks().size() == 4;
            } catch (java.io.IOException e) {
              return false;
            }
          });
      Set<String> after = s.checks().keySet();
      Set<String> gone = new HashSet<>(before);
      gone.removeAll(after);
      assertEquals(expectGone, gone);
    }
  }

  private static void seed(
      Stage s, XrpcClient runner, String ref, String commit, String wf, Instant at, CheckStatus st)
      throws Exception {
    boolean ended = st.ended();
    CheckRecord r =
        new CheckRecord(
            "at://" + s.owner.did() + "/dev.knotless.repo/app",
            ref,
            commit,
            null,
            null,
            wf,
            st,
            at.minus(Duration.ofMinutes(5)),
            at.minus(Duration.ofMinutes(4)),
            ended ? at : null,
            List.of(),
            null,
            List.of(),
            null);
    runner.putRecord(
        runner.did(),
        CheckRecord.COLLECTION,
        CheckKeys.push(s.owner.did(), s.key(), ref, commit, wf),
        r.toJson(),
        Swap.none());
  }
}
