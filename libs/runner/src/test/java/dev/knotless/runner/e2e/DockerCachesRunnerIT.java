package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.AllInOneIT.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The all-in-one runner with {@code --cache-dir}, end to end against the reference PDS and the
 * docker daemon: a workflow's cache is what the last passing push to the default branch left, and a
 * push to another branch reads it but leaves nothing in it.
 */
@WithPds
class DockerCachesRunnerIT {

  static final String BUILD =
      """
      on: {push: {}}
      image: knotless-test/busybox:1
      cache: [/cache, deps]
      steps:
        - name: build
          run: |
            if [ -f /cache/stamp ]; then echo "warm from $(cat /cache/stamp)"; else echo cold; fi
            echo "deps: $(ls deps | wc -l)"
            echo "$KNOTLESS_RUN_REF" > /cache/stamp
            for i in 1 2 3; do echo "$KNOTLESS_RUN_SHA" > deps/dep$i; done
      """;

  private static String log(RunnerHarness runner, CheckRecord c) throws Exception {
    return new String(runner.log(c), StandardCharsets.UTF_8);
  }

  @Test
  void theNextPushStartsFromWhatTheLastPassingDefaultBranchPushCached(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    LocalDocker.ensure();
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      List<String> flags =
          List.of(
              "--executor",
              "docker",
              "--image",
              LocalDocker.BUSYBOX,
              "--cache-dir",
              tmp.resolve("caches").toString());
      OwnerRepo repo = AllInOneIT.watchedRepo(pds, tmp, runner, flags);
      String first = repo.commit(Map.of(".knotless/workflows/build.yml", BUILD));
      repo.push("main");
      CheckRecord c1 = runner.awaitEnded(repo, MAIN, first, "build");
      assertEquals(CheckStatus.SUCCESS, c1.status(), log(runner, c1));
      assertTrue(log(runner, c1).contains("cold\ndeps: 0"), log(runner, c1));
      assertTrue(log(runner, c1).contains("cache /cache: promoted"), log(runner, c1));

      String onBranch = repo.commit(Map.of("b.txt", "b\n"));
      repo.push("feature");
      CheckRecord b = runner.awaitEnded(repo, "refs/heads/feature", onBranch, "build");
      assertEquals(CheckStatus.SUCCESS, b.status(), log(runner, b));
      assertTrue(log(runner, b).contains("warm from refs/heads/main\ndeps: 3"), log(runner, b));

      String second = repo.commit(Map.of("c.txt", "c\n"));
      repo.push("main");
      CheckRecord c2 = runner.awaitEnded(repo, MAIN, second, "build");
      assertEquals(CheckStatus.SUCCESS, c2.status(), log(runner, c2));
      assertTrue(
          log(runner, c2).contains("warm from refs/heads/main\ndeps: 3"),
          "the branch's run left nothing in the base: " + log(runner, c2));
    }
  }
}
