package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.MAIN;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.createPrivate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.space.SpaceId;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner taken out of a private repository's space while one of its runs goes: the run ends,
 * its end cannot be filed in the space and is filed nowhere else, the log says why, and the
 * repository is left.
 */
@WithPds
class PrivateMidRunIT {
  private static final String SLOW =
      "on: {push: {}}\nsteps:\n  - name: slow\n    run: echo mid-run-start; sleep 8; echo"
          + " mid-run-end\n";

  @Test
  void aRunnerRemovedFromTheSpaceWhileARunGoesFilesItsEndNowhereAndLeaves(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    midRun(pds, tmp, false);
  }

  @Test
  void aSpaceDeletedWhileARunGoesHasItsEndFiledNowhereAndIsLeft(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    midRun(pds, tmp, true);
  }

  private static void midRun(PdsInstance pds, Path tmp, boolean deleted) throws Exception {
    Account owner = pds.createAccount(deleted ? "middel" : "midown");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "midrun").withOAuth();
        CapturedLog log = new CapturedLog()) {
      String runner = h.account.did();
      createPrivate(pds, host, owner, tmp, "midrun", runner);
      OwnerRepo o = OwnerRepo.inSpace(owner, pds, host.url(), "midrun", tmp.resolve("owner/work"));
      var spaces = o.spaces;
      SpaceId space = o.space;
      o.commit(Map.of("README.md", "hi\n"));
      o.push("main");
      String key = o.key();
      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.start(List.of("--poll", "1"), owner.handle() + "/midrun");
      RunnerHarness.await(
          "the first pass",
          () -> new JsonStateStore(h.state()).load(owner.did() + "/" + key).isPresent());

      o.commit(Map.of(".knotless/workflows/ci.yml", SLOW));
      String sha = o.push("main");
      String rkey = CheckKeys.push(owner.did(), key, MAIN, sha, "ci");
      RunnerHarness.await(
          "the run going, filed as running in the space",
          () -> {
            try {
              return spaces
                  .getRecord(space, runner, CheckRecord.COLLECTION, rkey)
                  .map(r -> CheckRecord.fromJson(r.value()).status() == CheckStatus.RUNNING)
                  .orElse(false);
            } catch (java.io.IOException e) {
              return false;
            }
          });
      if (deleted) {
        spaces.deleteSpace(space);
      } else {
        spaces.removeMember(space, runner);
      }
      RunnerHarness.await(
          "the run's end, refused by the space",
          () -> log.text().contains("could not file the end of " + rkey));
      String t = log.text();
      String left =
          deleted
              ? "midrun: the private repository's space "
                  + space
                  + " is gone; no longer watching it"
              : "midrun: the runner is no longer a member of the private repository's space "
                  + space
                  + "; no longer watching it";
      assertTrue(t.contains(left), "the repository is left, saying why: " + t);
      String refused = t.substring(t.indexOf("could not file the end of " + rkey));
      assertTrue(
          refused.contains(deleted ? "SpaceNotFound" : "NotMember"),
          "the end's refusal says the space's reason: " + refused);
      if (!deleted) {
        assertEquals(
            CheckStatus.RUNNING,
            CheckRecord.fromJson(
                    spaces
                        .getRecord(space, runner, CheckRecord.COLLECTION, rkey)
                        .orElseThrow()
                        .value())
                .status(),
            "its end could not be written where only members write");
      }
      assertTrue(
          h.reader
              .listRecords(runner, CheckRecord.COLLECTION, 100, null, false)
              .records()
              .isEmpty(),
          "nothing in the runner's public account");
    }
  }
}
