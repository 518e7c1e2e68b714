package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.AllInOneIT.MAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.httpclient5.ApacheDockerHttpClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.filing.CheckFiler;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The all-in-one runner with the docker executor, end to end against the reference PDS. */
@WithPds
class DockerRunnerIT {

  static final String LOOK =
      """
      on: {push: {}}
      image: knotless-test/busybox:1
      steps:
        - name: look
          run: |
            echo "in $(cat /proc/1/cgroup | grep -c docker) container cgroups"
            echo "runner variables seen: $(env | grep -c -e '^KNOTLESS_PASSWORD=' -e '^KNOTLESS_IDENTIFIER=' -e '^KNOTLESS_CACHE_DIR=' -e '^HOME=/tmp' || true)"
            echo "repo is $KNOTLESS_RUN_REPO"
      """;

  static final String SLOW =
      """
      on: {push: {}}
      steps:
        - name: long
          run: echo started; sleep 300
      """;

  private static DockerClient docker;

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
    var config =
        DefaultDockerClientConfig.createDefaultConfigBuilder()
            .withDockerHost("unix:///var/run/docker.sock")
            .build();
    docker =
        DockerClientImpl.getInstance(
            config,
            new ApacheDockerHttpClient.Builder().dockerHost(config.getDockerHost()).build());
  }

  private static List<String> docker(String... more) {
    List<String> flags = new java.util.ArrayList<>(List.of("--executor", "docker"));
    flags.addAll(List.of(more));
    return flags;
  }

  private static int containersOf(RunnerHarness runner) {
    return docker
        .listContainersCmd()
        .withShowAll(true)
        .withLabelFilter(Map.of("dev.knotless.run.runner", runner.account.did()))
        .exec()
        .size();
  }

  @Test
  void aPushRunsInAContainerOfItsImageThatHoldsNothingOfTheRunners(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = AllInOneIT.watchedRepo(pds, tmp, runner, docker("--image", "no-such:1"));
      String sha = repo.commit(Map.of(".knotless/workflows/look.yml", LOOK));
      repo.push("main");

      CheckRecord c = runner.awaitEnded(repo, MAIN, sha, "look");
      String log = new String(runner.log(c), StandardCharsets.UTF_8);
      assertEquals(CheckStatus.SUCCESS, c.status(), log);
      assertTrue(log.contains("from knotless-test/busybox:1"), "the workflow's image: " + log);
      assertTrue(log.contains("runner variables seen: 0"), log);
      assertTrue(log.contains("repo is " + repo.label()), log);
      assertFalse(log.contains("in 0 container cgroups"), "the step ran on the host: " + log);
      assertEquals(0, containersOf(runner), "the run's container was removed");
    }
  }

  @Test
  void aCrashMidRunLeavesAContainerTheNextStartRemovesAndItsCheckEndsAsError(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      repo.commit(Map.of("README.md", "hello\n"));
      repo.push("main");
      List<String> flags = docker("--image", LocalDocker.BUSYBOX);
      Process p = StopAndStartIT.spawn(runner, repo, flags);
      try {
        runner.awaitWatched(repo);
        String sha = repo.commit(Map.of(".knotless/workflows/a-slow.yml", SLOW));
        repo.push("main");
        runner.awaitCheck(repo, MAIN, sha, "a-slow", c -> c.status() == CheckStatus.RUNNING);
        // The check is filed running as the run takes its job; its container comes just after.
        RunnerHarness.await("the run's container", () -> containersOf(runner) == 1);
        p.destroyForcibly(); // SIGKILL: no stop procedure runs, the container stays
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, containersOf(runner), "the killed runner's container is still there");

        runner.start(flags, repo.label());
        assertEquals(0, containersOf(runner), "the start removed the leftover container");
        CheckRecord c = runner.check(repo, MAIN, sha, "a-slow");
        assertEquals(CheckStatus.ERROR, c.status(), "ended before start returns: " + c);
        assertEquals(CheckFiler.STALE_NOTE, c.note());
      } finally {
        p.destroyForcibly();
      }
    }
  }
}
