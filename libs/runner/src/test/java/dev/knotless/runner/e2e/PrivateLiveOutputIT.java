package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.MAIN;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.commit;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.push;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.XrpcSpaceClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.AppviewRunOutputs;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.HarnessOAuth;
import dev.knotless.testing.infra.HarnessSpaceHost;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A private repository's run sends what it prints to the appview as a public one's does, each piece
 * naming the repository's space, and the harness appview shows it only to the space's members: a
 * member proving it with a space credential reads the lines while the run goes; a caller with no
 * credential, or with one for another space, is refused, never shown an empty output; nothing of it
 * is in the appview's public listing or the runner's public account.
 */
@WithPds
class PrivateLiveOutputIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final String SLOW =
      """
      on: {push: {}}
      steps:
        - name: one
          run: echo "a private first line"; sleep 8; echo "a private second line"
      """;

  @Test
  void aMemberReadsAPrivateRunsOutputWhileItGoesAndOthersAreRefused(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("lvown");
    Account stranger = pds.createAccount("lvstr");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "lvrun").withOAuth()) {
      appview.checkMembersAt(host.url());
      SpaceNotifyRunnerIT.Owner o =
          new SpaceNotifyRunnerIT.Owner(pds, host, owner, tmp, "live", h.account.did());
      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      h.start(List.of("--poll", "1"), owner.handle() + "/live");
      RunnerHarness.await(
          "the repository watched",
          () -> new JsonStateStore(h.state()).load(owner.did() + "/" + o.key).isPresent());

      String sha = commit(o.work, ".knotless/workflows/ci.yml", SLOW);
      push(o.pusher, o.address, o.work);
      String rkey = CheckKeys.push(owner.did(), o.key, MAIN, sha, "ci");
      String check = "at://" + h.account.did() + "/dev.knotless.check/" + rkey;
      RunnerHarness.await(
          "the first line at the appview",
          () ->
              appview.runOutputs().stream()
                  .anyMatch(p -> p.path("text").asText().contains("a private first line")));
      for (ObjectNode piece : appview.runOutputs()) {
        assertEquals(check, piece.path("check").asText());
        assertEquals(owner.did() + "/live", piece.path("space").asText(), "names its space");
      }

      // The owner, a member, proves it with a space credential and reads the run as it goes.
      String ownerCredential = credential(pds, host, owner, o.space);
      HttpResponse<String> read = read(appview.url(), check, ownerCredential);
      assertEquals(200, read.statusCode(), read.body());
      JsonNode shown = JSON.readTree(read.body());
      assertTrue(shown.path("text").asText().contains("a private first line"), read.body());
      assertFalse(shown.path("ended").asBoolean(), read.body());
      CheckRecord running =
          CheckRecord.fromJson(
              o.spaces
                  .getRecord(o.space, h.account.did(), CheckRecord.COLLECTION, rkey)
                  .orElseThrow()
                  .value());
      assertEquals(CheckStatus.RUNNING, running.status(), "read while the step still sleeps");

      // No credential: told to prove membership. A credential for another space: not a member.
      HttpResponse<String> anonymous = read(appview.url(), check, null);
      assertEquals(401, anonymous.statusCode(), anonymous.body());
      assertTrue(anonymous.body().contains("prove you are a member of"), anonymous.body());
      assertFalse(anonymous.body().contains("private first line"), anonymous.body());
      XrpcClient strangerPds = HarnessOAuth.client(pds, stranger);
      SpaceId own =
          new XrpcSpaceClient(XrpcClient.create(host.url()), strangerPds, Clock.systemUTC())
              .createSpace("mine");
      HttpResponse<String> other = read(appview.url(), check, credential(pds, host, stranger, own));
      assertEquals(403, other.statusCode(), other.body());
      assertTrue(other.body().contains("NotMember"), other.body());
      assertFalse(other.body().contains("private first line"), other.body());

      // Ended, the member reads it whole; still nothing of it anywhere public.
      o.awaitCheck(sha, "the slow run");
      RunnerHarness.await("the last piece", () -> shown(appview, check, ownerCredential));
      String whole =
          JSON.readTree(read(appview.url(), check, ownerCredential).body()).path("text").asText();
      assertTrue(whole.contains("a private second line"), whole);
      assertEquals(401, read(appview.url(), check, null).statusCode());
      String listed =
          HTTP.send(
                  HttpRequest.newBuilder(URI.create(appview.url() + "/xrpc/dev.knotless.listRepos"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertFalse(
          listed.contains("\"live\""), "the appview lists no private repository: " + listed);
      assertTrue(
          h.reader
              .listRecords(h.account.did(), CheckRecord.COLLECTION, 100, null, false)
              .records()
              .isEmpty(),
          "nothing in the runner's public account");
    }
  }

  private static boolean shown(HarnessAppview appview, String check, String credential) {
    try {
      return JSON.readTree(read(appview.url(), check, credential).body()).path("ended").asBoolean();
    } catch (Exception e) {
      return false;
    }
  }

  /** A space credential for {@code space}, as {@code who} gets one from the host. */
  private static String credential(
      PdsInstance pds, HarnessSpaceHost host, Account who, SpaceId space) throws Exception {
    return host.credential(pds, who, space.toString());
  }

  private static HttpResponse<String> read(URI appview, String check, String credential)
      throws Exception {
    return AppviewRunOutputs.read(appview, check, credential);
  }
}
