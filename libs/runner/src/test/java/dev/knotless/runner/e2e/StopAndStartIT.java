package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.AllInOneIT.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.engine.Runner;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stop leaves no check running; a restart runs what the stop dropped; a crash is cleaned up. */
@WithPds
class StopAndStartIT {
  static final String SLOW =
      """
      on: {push: {}}
      steps:
        - name: long
          run: echo started; sleep 120
      """;
  static final String QUICK =
      """
      on: {push: {}}
      steps:
        - name: quick
          run: echo "quick ran"
      """;

  @Test
  void aStopCancelsTheRunningRunDropsTheWaitingOneAndARestartRunsTheDroppedOne(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      List<String> flags = List.of("--jobs", "1", "--stop-wait", "1");
      OwnerRepo repo = AllInOneIT.watchedRepo(pds, tmp, runner, flags);
      Runner first = runner.started().get(0);
      String sha =
          repo.commit(
              Map.of(
                  ".knotless/workflows/a-slow.yml",
                  SLOW,
                  ".knotless/workflows/b-quick.yml",
                  QUICK));
      repo.push("main");
      runner.awaitCheck(repo, MAIN, sha, "a-slow", c -> c.status() == CheckStatus.RUNNING);
      assertEquals(CheckStatus.QUEUED, runner.check(repo, MAIN, sha, "b-quick").status());

      long t0 = System.nanoTime();
      first.stop();
      assertTrue(
          System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30),
          "the stop waited --stop-wait, then cancelled, rather than waiting out the step");
      CheckRecord slow = runner.check(repo, MAIN, sha, "a-slow");
      CheckRecord quick = runner.check(repo, MAIN, sha, "b-quick");
      assertEquals(CheckStatus.CANCELLED, slow.status(), String.valueOf(slow));
      assertEquals(CheckStatus.CANCELLED, quick.status(), String.valueOf(quick));
      assertTrue(runner.checks(repo).values().stream().allMatch(c -> c.status().ended()));

      runner.start(flags, repo.label());
      CheckRecord again =
          runner.awaitCheck(repo, MAIN, sha, "b-quick", c -> c.status() == CheckStatus.SUCCESS);
      assertTrue(new String(runner.log(again), StandardCharsets.UTF_8).contains("quick ran"));
      assertEquals(
          CheckStatus.CANCELLED,
          runner.check(repo, MAIN, sha, "a-slow").status(),
          "only the dropped workflow runs again");
    }
  }

  @Test
  void aStopLetsARunningDeployEndAndStartsTheWaitingRunAtItsCommit(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    String deploy =
        """
        on: {push: {}}
        superseded: finish
        steps:
          - name: deploy
            run: echo deploying; sleep 6; echo deployed
        """;
    String slow =
        """
        on: {push: {}}
        steps:
          - name: slow
            run: sleep 2; echo "slow ran"
        """;
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      List<String> flags = List.of("--jobs", "2", "--stop-wait", "60");
      OwnerRepo repo = AllInOneIT.watchedRepo(pds, tmp, runner, flags);
      Runner first = runner.started().get(0);
      String sha =
          repo.commit(
              Map.of(
                  ".knotless/workflows/a-deploy.yml",
                  deploy,
                  ".knotless/workflows/b-slow.yml",
                  slow,
                  ".knotless/workflows/c-quick.yml",
                  QUICK));
      repo.push("main");
      runner.awaitCheck(repo, MAIN, sha, "a-deploy", c -> c.status() == CheckStatus.RUNNING);
      runner.awaitCheck(repo, MAIN, sha, "b-slow", c -> c.status() == CheckStatus.RUNNING);
      assertEquals(CheckStatus.QUEUED, runner.check(repo, MAIN, sha, "c-quick").status());

      first.stop();
      for (String w : List.of("a-deploy", "b-slow", "c-quick")) {
        CheckRecord c = runner.check(repo, MAIN, sha, w);
        assertEquals(CheckStatus.SUCCESS, c.status(), w + " ran to its end in the stop: " + c);
      }
      assertTrue(
          new String(runner.log(runner.check(repo, MAIN, sha, "a-deploy")), StandardCharsets.UTF_8)
              .contains("deployed"));
      assertTrue(
          new String(runner.log(runner.check(repo, MAIN, sha, "c-quick")), StandardCharsets.UTF_8)
              .contains("quick ran"),
          "the deploy kept its commit's waiting run, which started when a job came free");
    }
  }

  @Test
  void aCrashMidRunLeavesACheckTheNextStartEndsAsError(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      repo.commit(Map.of("README.md", "hello\n"));
      repo.push("main");
      Process p = spawn(runner, repo);
      try {
        runner.awaitWatched(repo);
        String sha = repo.commit(Map.of(".knotless/workflows/a-slow.yml", SLOW));
        repo.push("main");
        runner.awaitCheck(repo, MAIN, sha, "a-slow", c -> c.status() == CheckStatus.RUNNING);
        p.destroyForcibly(); // SIGKILL: no stop procedure runs
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(CheckStatus.RUNNING, runner.check(repo, MAIN, sha, "a-slow").status());

        runner.start(List.of(), repo.label());
        CheckRecord c = runner.check(repo, MAIN, sha, "a-slow");
        assertEquals(CheckStatus.ERROR, c.status(), "ended before start returns: " + c);
        assertEquals(CheckFiler.STALE_NOTE, c.note());
      } finally {
        p.destroyForcibly();
      }
    }
  }

  static Process spawn(RunnerHarness runner, OwnerRepo repo) throws Exception {
    return spawn(runner, repo, List.of());
  }

  static Process spawn(RunnerHarness runner, OwnerRepo repo, List<String> flags) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(RunnerProcessMain.class.getName());
    cmd.addAll(runner.args(flags, repo.label()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(runner.env());
    Process p = pb.start();
    Path log = runner.dir.resolve("process.log");
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                      new BufferedReader(
                          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                  var w = java.nio.file.Files.newBufferedWriter(log)) {
                for (String line; (line = r.readLine()) != null; ) {
                  w.write(line);
                  w.newLine();
                  w.flush();
                }
              } catch (java.io.IOException e) {
                // the process was killed; its output ends here
              }
            });
    pump.setDaemon(true);
    pump.start();
    return p;
  }
}
