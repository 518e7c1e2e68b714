package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.atproto.space.XrpcSpaceClient;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.runner.state.RepoState;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Settings;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.push.Pusher;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessOAuth;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --private-allowance} with a private run, end to end: an owner past it has its private runs
 * go one at a time, saying so, while its public runs, counted apart, are not held; the private
 * run's time goes to {@code used_private}; and the owner's public {@code dev.knotless.minutes}
 * record never shows private minutes.
 */
@WithPds
class PrivateAllowanceIT {

  @Test
  void aPrivateRunPastThePrivateAllowanceIsHeldAndCountedApartFromPublicMinutes(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("alwown");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "alwrun").withOAuth()) {
      String runner = h.account.did();
      PrivateRepoRunnerIT.createPrivate(pds, host, owner, tmp, "secret", runner);
      XrpcClient ownerPds = HarnessOAuth.client(pds, owner);
      var spaces = new XrpcSpaceClient(XrpcClient.create(host.url()), ownerPds, Clock.systemUTC());
      SpaceId space = new SpaceId(owner.did(), "secret");
      RepoAddress address = new RepoAddress(owner.did(), owner.handle(), pds.pdsUrl(), "secret");
      Path work = tmp.resolve("owner/work");
      Files.createDirectories(work);
      PrivateRepoRunnerIT.git(work, "init", "-q", "-b", "main");
      Pusher pusher =
          new Pusher(
              new SpaceRecords(spaces, space, host.url()),
              StorageCache.at(tmp.resolve("owner/cache"), Clock.systemUTC()),
              Clock.systemUTC(),
              Settings.defaults().claimGrace());
      PrivateRepoRunnerIT.commit(work, "README.md", "hi\n");
      PrivateRepoRunnerIT.push(pusher, address, work);
      String key =
          spaces
              .getRecord(space, owner.did(), "dev.knotless.repo", "secret")
              .orElseThrow()
              .value()
              .path("key")
              .asText();
      // The same owner's public repository, named on the runner too.
      OwnerRepo pub = new OwnerRepo(owner, pds.pdsUrl(), "open", tmp.resolve("owner-public"));
      pub.commit(Map.of("README.md", "hello\n"));
      pub.push("main");

      // Two private minutes the owner's runs took earlier today, as an earlier start left them:
      // past a private allowance of one. Nothing public used yet.
      LocalDate today = LocalDate.now(ZoneOffset.UTC);
      new JsonStateStore(h.state())
          .update(owner.did() + "/3kearlierprivate", s -> s.withUsage(today, 120_000, true, today));
      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.start(
          List.of("--poll", "1", "--allowance", "60", "--private-allowance", "1"),
          owner.handle() + "/secret",
          pub.label());
      String pubKey = pub.key();
      RunnerHarness.await(
          "both first passes",
          () ->
              new JsonStateStore(h.state()).load(owner.did() + "/" + key).isPresent()
                  && new JsonStateStore(h.state()).load(owner.did() + "/" + pubKey).isPresent());

      String sha =
          PrivateRepoRunnerIT.commit(
              work, ".knotless/workflows/ci.yml", PrivateRepoRunnerIT.CI + "  - run: sleep 1\n");
      PrivateRepoRunnerIT.push(pusher, address, work);
      String rkey = CheckKeys.push(owner.did(), key, MAIN, sha, "ci");
      CheckRecord[] seen = {null};
      RunnerHarness.await(
          "the private push's check in the space",
          () -> {
            try {
              Optional<Record> r = spaces.getRecord(space, runner, CheckRecord.COLLECTION, rkey);
              seen[0] = r.map(x -> CheckRecord.fromJson(x.value())).orElse(null);
              return seen[0] != null && seen[0].status().ended();
            } catch (java.io.IOException e) {
              return false;
            }
          });
      assertEquals(CheckStatus.SUCCESS, seen[0].status(), String.valueOf(seen[0]));
      String privateLog =
          new String(
              spaces.getBlob(space, runner, seen[0].log().cid(), 1 << 20), StandardCharsets.UTF_8);
      assertTrue(
          privateLog.startsWith(
              "==> this owner is past the allowance for private repositories of this runner, so"
                  + " their runs go one at a time: this run waited "),
          privateLog);

      // Its step time is the repository's used_private, none of it in used.
      RunnerHarness.await(
          "the private run's time in used_private",
          () -> privateUsed(h, owner.did() + "/" + key) >= 1_000);
      RepoState privateState = new JsonStateStore(h.state()).load(owner.did() + "/" + key).get();
      assertTrue(privateState.used().isEmpty(), "no public time: " + privateState.used());

      // The owner's public run is not held: private minutes are counted apart.
      String pubSha = pub.commit(Map.of(".knotless/workflows/ci.yml", PrivateRepoRunnerIT.CI));
      pub.push("main");
      CheckRecord open = h.awaitEnded(pub, MAIN, pubSha, "ci");
      assertEquals(CheckStatus.SUCCESS, open.status(), String.valueOf(open));
      String publicLog = new String(h.log(open), StandardCharsets.UTF_8);
      assertFalse(publicLog.contains("past the allowance"), publicLog);

      // The public minutes record, written as the public run ended, shows its minutes only: not
      // the three private minutes and more, nor anything that says a private repository exists.
      JsonNode minutes = awaitMinutes(h, owner.did());
      assertEquals(0, minutes.path("minutes").asLong(), minutes.toString());
      assertEquals(60, minutes.path("allowance").asLong(), minutes.toString());
      assertFalse(minutes.toString().contains("rivate"), minutes.toString());
      // The runner's public account holds no check of the private repository.
      assertTrue(
          h.checks(pub).keySet().stream().noneMatch(k -> k.contains(key)),
          h.checks(pub).toString());
    }
  }

  private static long privateUsed(RunnerHarness h, String repo) {
    try {
      return new JsonStateStore(h.state())
          .load(repo)
          .map(s -> s.usedPrivate().values().stream().mapToLong(Long::longValue).sum())
          .orElse(0L);
    } catch (RuntimeException e) {
      return 0;
    }
  }

  private static JsonNode awaitMinutes(RunnerHarness h, String owner) throws Exception {
    JsonNode[] found = {null};
    RunnerHarness.await(
        "the owner's minutes record",
        () -> {
          try {
            found[0] =
                h.reader
                    .findRecord(h.account.did(), "dev.knotless.minutes", owner)
                    .map(Record::value)
                    .orElse(null);
            return found[0] != null;
          } catch (java.io.IOException e) {
            return false;
          }
        });
    return found[0];
  }
}
