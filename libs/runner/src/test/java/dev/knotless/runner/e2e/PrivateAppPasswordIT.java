package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
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
 * A runner logged in with an app password, named a private repository (of which it is a member) and
 * a public one: the PDS gives its login no token for the space, as one with spaces will not, so the
 * private repository is passed over with a line saying to log the runner in with OAuth, while the
 * public one is watched and run as ever, and nothing of the private one is written anywhere. The
 * same runner on OAuth runs a private repository: {@link PrivateRepoRunnerIT}.
 */
@WithPds
class PrivateAppPasswordIT {
  static final String MAIN = "refs/heads/main";
  static final String CI = "on: {push: {}}\nsteps:\n  - name: hello\n    run: echo hello\n";

  @Test
  void aRunnerOnAnAppPasswordPassesOverAPrivateRepositorySayingToLogInWithOAuth(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("apwown");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "apwrun");
        CapturedLog log = new CapturedLog()) {
      String runner = h.account.did();
      PrivateRepoRunnerIT.createPrivate(pds, host, owner, tmp, "hidden", runner);
      OwnerRepo hidden =
          OwnerRepo.inSpace(owner, pds, host.url(), "hidden", tmp.resolve("owner/hidden"));
      hidden.commit(Map.of(".knotless/workflows/ci.yml", CI));
      hidden.push("main");
      OwnerRepo open = new OwnerRepo(owner, pds.pdsUrl(), "open", tmp.resolve("owner/open"));
      open.commit(Map.of("README.md", "hi\n"));
      open.push("main");

      String label = owner.handle() + "/hidden";
      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.start(List.of("--poll", "1"), label, open.label());
      h.awaitWatched(open);
      String passedOver = label + ": cannot be watched, passed over until the next start: ";
      RunnerHarness.await(
          "the private repository passed over", () -> log.text().contains(passedOver));
      String line =
          log.text().lines().filter(l -> l.contains(passedOver)).findFirst().orElseThrow();
      assertTrue(
          line.contains("it is private, and the PDS gave this login no service token"), line);
      assertTrue(line.contains("an app password reads no private repository"), line);
      assertTrue(line.contains("`knotless-run login " + runner + "`"), line);

      // The public repository is run as ever, by the same runner, still going.
      String sha = open.commit(Map.of(".knotless/workflows/ci.yml", CI));
      open.push("main");
      assertEquals(CheckStatus.SUCCESS, h.awaitEnded(open, MAIN, sha, "ci").status());

      // Nothing of the private one: no check in the runner's public account, none in the space.
      String prefix = CheckKeys.repoPrefix(owner.did(), hidden.key());
      List<Record> checks =
          h.reader.listRecords(runner, CheckRecord.COLLECTION, 100, null, false).records();
      assertTrue(checks.stream().noneMatch(r -> r.uri().contains("/" + prefix)), checks.toString());
      String rkey = CheckKeys.push(owner.did(), hidden.key(), MAIN, hidden.head(), "ci");
      assertTrue(
          hidden.spaces.getRecord(hidden.space, runner, CheckRecord.COLLECTION, rkey).isEmpty());
    }
  }
}
