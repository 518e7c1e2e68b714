package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.AllInOneIT.MAIN;
import static dev.knotless.runner.e2e.AllInOneIT.PASSING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.check.StepResult;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A newer push cancels the older run; a push whose frame never comes is run by the sweep. */
@WithPds
class SupersedeAndSweepIT {

  /** Sleeps while the commit holds a file named {@code slow}, so one commit runs long. */
  static final String SLOW_WHEN_ASKED =
      """
      on: {push: {}}
      steps:
        - name: work
          run: if [ -f slow ]; then echo sleeping; sleep 120; fi; echo done
        - name: after
          run: echo after
      """;

  @Test
  void aNewerPushCancelsTheOlderRunningRun(PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = AllInOneIT.watchedRepo(pds, tmp, runner, List.of());
      String older =
          repo.commit(Map.of(".knotless/workflows/ci.yml", SLOW_WHEN_ASKED, "slow", "1\n"));
      repo.push("main");
      runner.awaitCheck(repo, MAIN, older, "ci", c -> c.status() == CheckStatus.RUNNING);

      Map<String, String> drop = new HashMap<>();
      drop.put("slow", null);
      String newer = repo.commit(drop);
      repo.push("main");

      CheckRecord cancelled = runner.awaitEnded(repo, MAIN, older, "ci");
      assertEquals(CheckStatus.CANCELLED, cancelled.status(), String.valueOf(cancelled));
      assertEquals(StepResult.Status.CANCELLED, cancelled.steps().get(0).status());
      assertEquals(StepResult.Status.SKIPPED, cancelled.steps().get(1).status());
      assertTrue(
          cancelled.endedAt().isBefore(cancelled.startedAt().plusSeconds(60)),
          "the sleeping step was killed, not waited out");
      assertEquals(CheckStatus.SUCCESS, runner.awaitEnded(repo, MAIN, newer, "ci").status());
    }
  }

  @Test
  void aPushWhoseFrameNeverArrivesIsRunByTheSweep(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      // A Jetstream that never answers: no frame ever comes, only the sweep rings.
      OwnerRepo repo =
          AllInOneIT.watchedRepo(
              pds,
              tmp,
              runner,
              List.of("--jetstream", "ws://127.0.0.1:" + closed + "/subscribe", "--sweep", "2"));
      String sha = repo.commit(Map.of(".knotless/workflows/ci.yml", PASSING));
      repo.push("main");
      assertEquals(CheckStatus.SUCCESS, runner.awaitEnded(repo, MAIN, sha, "ci").status());
    }
  }
}
