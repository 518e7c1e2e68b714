package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.AllInOneIT.MAIN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An owner follows a real runner's check with {@code knotless check --watch} from queued to its
 * end, and reads its log with {@code knotless log}, byte for byte as the runner filed it.
 */
@WithPds
class OwnerToolsWatchIT {

  // With one job, "b" waits queued while "a" sleeps; "b" prints bytes that are not all text.
  static final String A =
      """
      on: {push: {}}
      steps:
        - name: hold
          run: sleep 6
      """;
  static final String B =
      """
      on: {push: {}}
      steps:
        - name: print
          run: sleep 3; printf 'line one\\nprogress 50%%\\rprogress 100%%\\r\\n\\377\\376 no newline'
      """;

  @Test
  void aWatchedCheckShowsQueuedRunningAndItsEndAndItsLogIsTheFiledBytes(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = AllInOneIT.watchedRepo(pds, tmp, runner, List.of("--jobs", "1"));
      Map<String, String> env = new HashMap<>(pds.environment());
      env.put("KNOTLESS_IDENTIFIER", repo.account.handle());
      env.put("KNOTLESS_PASSWORD", repo.account.password());
      env.put("KNOTLESS_CACHE_DIR", tmp.resolve("cli-cache").toString());
      env.put("KNOTLESS_CONFIG_DIR", tmp.resolve("cli-config").toString());
      assertEquals(
          0, AllInOneIT.knotless(env, "runners", repo.label(), "add", runner.account.did())[0]);
      String sha =
          repo.commit(Map.of(".knotless/workflows/a.yml", A, ".knotless/workflows/b.yml", B));
      repo.push("main");
      runner.awaitCheck(repo, MAIN, sha, "b", c -> c.status() == CheckStatus.QUEUED);

      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      CompletableFuture<Integer> watch =
          CompletableFuture.supplyAsync(
              () ->
                  knotless(
                      env,
                      out,
                      err,
                      "check",
                      "knotless://" + repo.label(),
                      "--ref",
                      "main",
                      "--workflow",
                      "b",
                      "--watch",
                      "--interval",
                      "1"));
      int exit = watch.get(3, TimeUnit.MINUTES);
      String said = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
      assertEquals(0, exit, said);
      int queued = said.indexOf("b at " + sha.substring(0, 7));
      assertTrue(said.contains(": queued"), said);
      assertTrue(said.indexOf(": running") > said.indexOf(": queued"), said);
      assertTrue(said.indexOf(": success") > said.indexOf(": running"), said);
      assertTrue(queued >= 0, said);

      CheckRecord ended = runner.awaitEnded(repo, MAIN, sha, "b");
      ByteArrayOutputStream log = new ByteArrayOutputStream();
      int logExit =
          knotless(
              env,
              log,
              new ByteArrayOutputStream(),
              "log",
              "knotless://" + repo.label(),
              "--ref",
              "main",
              "--workflow",
              "b");
      assertEquals(0, logExit);
      assertArrayEquals(runner.log(ended), log.toByteArray(), "the log as the runner filed it");
      assertTrue(
          new String(log.toByteArray(), StandardCharsets.ISO_8859_1)
              .contains("progress 50%\rprogress 100%\r\n\377\376 no newline"),
          "the step's bytes, as it wrote them");
    }
  }

  private static int knotless(
      Map<String, String> env,
      ByteArrayOutputStream out,
      ByteArrayOutputStream err,
      String... argv) {
    return dev.knotless.cli.KnotlessCli.run(
        List.of(argv),
        new dev.knotless.storage.cli.CliContext(
            env,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            () -> dev.knotless.storage.KnotlessRepos.fromEnvironment(env)));
  }
}
