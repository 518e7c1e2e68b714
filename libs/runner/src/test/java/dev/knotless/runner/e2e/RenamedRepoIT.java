package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.AllInOneIT.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.storage.KnotlessRepos;
import dev.knotless.storage.cli.CliContext;
import dev.knotless.storage.cli.RenameCommand;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A watched repository renamed with {@code knotless repo rename} while the runner runs: the runner
 * follows the old name's redirect, keeps running its pushes by its key, and says so in its log.
 */
@WithPds
class RenamedRepoIT {

  @Test
  void aWatchedRepositoryRenamedKeepsRunningAndTheLogSaysWhereItWent(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (CapturedLog log = new CapturedLog();
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = AllInOneIT.watchedRepo(pds, tmp, runner, List.of());
      String key = repo.key();
      String sha = repo.commit(Map.of(".knotless/workflows/ci.yml", AllInOneIT.PASSING));
      repo.push("main");
      assertEquals(CheckStatus.SUCCESS, runner.awaitEnded(repo, MAIN, sha, "ci").status());

      Map<String, String> env = new HashMap<>(pds.environment());
      env.put("KNOTLESS_IDENTIFIER", repo.account.handle());
      env.put("KNOTLESS_PASSWORD", repo.account.password());
      env.put("KNOTLESS_CACHE_DIR", tmp.resolve("tools").toString());
      env.put("KNOTLESS_CONFIG_DIR", tmp.resolve("tools-config").toString());
      ByteArrayOutputStream said = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(said, true, StandardCharsets.UTF_8);
      assertEquals(
          0,
          RenameCommand.run(
              repo.label(),
              "renamed",
              new CliContext(env, out, out, () -> KnotlessRepos.fromEnvironment(env))),
          said.toString(StandardCharsets.UTF_8));

      // The same work tree, pushing under the new name.
      OwnerRepo renamed =
          new OwnerRepo(repo.account, pds.pdsUrl(), "renamed", tmp.resolve("owner"));
      assertEquals(key, renamed.key());
      String next = renamed.commit(Map.of("more.txt", "more\n"));
      renamed.push("main");
      CheckRecord c = runner.awaitEnded(renamed, MAIN, next, "ci");
      assertEquals(CheckStatus.SUCCESS, c.status(), String.valueOf(c));
      String text = log.text();
      assertTrue(
          text.contains(
              repo.label()
                  + ": renamed to renamed; the old name redirects there, and it is still"
                  + " watched by its key "
                  + key),
          text);
    }
  }
}
