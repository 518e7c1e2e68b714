package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.MAIN;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.createPrivate;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.testing.Account;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runner checking pulls ({@code --pulls}, with the merge queue) that watches a private
 * repository: the appview lists no private repository's pulls, so they are not checked. The runner
 * says so once for the repository, not at every pass, never asks the appview about it (which would
 * tell the appview its name), and checks its pushes in the space as before.
 */
@WithPds
class PrivatePullsIT {
  /** A push's workflow, in a container: --pulls runs only under docker. */
  private static final String CI =
      "on: {push: {}}\nimage: knotless-test/busybox:1\nsteps:\n  - name: hello\n    run: echo"
          + " private-hello\n";

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  @Test
  void aPrivateRepositorysPullsAreSaidOnceToBeUncheckedAndTheAppviewIsNeverAsked(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("pullown");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "pullrun").withOAuth();
        CapturedLog log = new CapturedLog()) {
      String runner = h.account.did();
      createPrivate(pds, host, owner, tmp, "pulled", runner);
      OwnerRepo o = OwnerRepo.inSpace(owner, pds, host.url(), "pulled", tmp.resolve("owner/work"));
      o.commit(Map.of(".knotless/workflows/ci.yml", CI));
      o.push("main");
      String key = o.key();
      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      h.start(
          List.of("--executor", "docker", "--poll", "1", "--pulls", "--queue"),
          owner.handle() + "/pulled");

      // Two pushes after the first pass: three passes at least, each skipping the pulls.
      for (String file : List.of("one.txt", "two.txt")) {
        o.commit(Map.of(file, file + "\n"));
        String sha = o.push("main");
        String rkey = CheckKeys.push(owner.did(), key, MAIN, sha, "ci");
        RunnerHarness.await(
            "the check of " + file + " ended in the space",
            () -> {
              try {
                return o.spaces
                    .getRecord(o.space, runner, CheckRecord.COLLECTION, rkey)
                    .map(r -> CheckRecord.fromJson(r.value()).status().ended())
                    .orElse(false);
              } catch (java.io.IOException e) {
                return false;
              }
            });
      }
      String line =
          "pulled: private, so its pulls are not checked and its merge queue is not landed: the"
              + " appview lists no private repository's pulls";
      String t = log.text();
      assertEquals(1, t.split(java.util.regex.Pattern.quote(line), -1).length - 1, t);
      assertEquals(0, appview.queries(), "the appview was never asked for its pulls");
    }
  }
}
