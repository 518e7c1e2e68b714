package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trusted pull's cache layers reaching the base, end to end against the reference PDS and the
 * docker daemon: kept by its pass and promoted by the push that takes that pass, forgotten when the
 * pull closes unmerged; and, on a {@code --pulls-only} runner, promoted by the pull's pass itself,
 * so the next pull starts warm.
 */
@WithPds
class KeptLayersRunnerIT {

  private static final String BUILD =
      """
      on: {push: {refs: [refs/heads/main]}, pull: {base: [refs/heads/main]}}
      image: knotless-test/busybox:1
      cache: [/cache]
      steps:
        - name: build
          run: |
            if [ -f /cache/stamp ]; then echo "warm from $(cat /cache/stamp)"; else echo cold; fi
            echo "$KNOTLESS_RUN_SHA" > /cache/stamp
      """;

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  private static List<String> flags(Path tmp, String... more) {
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--executor",
                "docker",
                "--image",
                LocalDocker.BUSYBOX,
                "--cache-dir",
                tmp.resolve("caches").toString()));
    flags.addAll(List.of(more));
    return flags;
  }

  @Test
  void thePushTakingATrustedPullsPassPromotesTheLayersThePullKept(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = watched(pds, tmp, appview, runner, "--pulls");
      String base = repo.git("rev-parse", "main").strip();

      PullRun feature = passes(runner, repo, "feature", "a.txt", base);
      String head = feature.head();
      assertTrue(
          feature
              .log()
              .matches("(?s).*cache /cache: \\d+ bytes kept for the push that lands this pass.*"),
          feature.log());

      // Another pull's pass keeps its layers too, till the pull is closed without landing.
      PullRun other = passes(runner, repo, "other", "c.txt", base);
      Path kept = tmp.resolve("caches").resolve("kept");
      assertEquals(2, sets(kept));
      new PullAuthor(repo).state(repo, other.pull(), "closed");
      branch(repo, "nudge", "d.txt"); // a push rings the repository's door: a pass lists pulls
      RunnerHarness.await(
          "the layers of the pull closed unmerged forgotten", () -> sets(kept) == 1);

      repo.git("merge", "-q", "--ff-only", "feature");
      String tookLog = pushPasses(runner, repo);
      assertTrue(tookLog.contains("its result is taken and nothing is run again"), tookLog);
      assertTrue(tookLog.contains("\ncache /cache: promoted, "), tookLog);

      repo.commit(Map.of("b.txt", "b\n"));
      String warmLog = pushPasses(runner, repo);
      assertTrue(
          warmLog.contains("warm from " + head), "the pull's layers were not promoted: " + warmLog);
    }
  }

  @Test
  void onAPullsOnlyRunnerATrustedPullsPassPromotesAndTheNextPullStartsWarm(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo = watched(pds, tmp, appview, runner, "--pulls-only");
      String base = repo.git("rev-parse", "main").strip();

      PullRun first = passes(runner, repo, "one", "a.txt", base);
      assertTrue(first.log().contains("cold"), first.log());
      assertTrue(first.log().contains("\ncache /cache: promoted, "), first.log());

      PullRun second = passes(runner, repo, "two", "b.txt", base);
      assertTrue(
          second.log().contains("warm from " + first.head()),
          "the first pull's pass did not make the base: " + second.log());
    }
  }

  /**
   * The owner's repository with the build workflow on main, watched by a runner with {@code mode}.
   */
  private static OwnerRepo watched(
      PdsInstance pds, Path tmp, HarnessAppview appview, RunnerHarness runner, String mode)
      throws Exception {
    OwnerRepo repo =
        new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
    repo.commit(Map.of(".knotless/workflows/build.yml", BUILD, "README.md", "hello\n"));
    repo.push("main");
    runner.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
    runner.start(flags(tmp, mode), repo.label());
    runner.awaitWatched(repo);
    return repo;
  }

  /** A pull's head, its AT-URI, and the log of its pass. */
  private record PullRun(String head, String pull, String log) {}

  /** A pull of a new branch into main, whose pass on {@code base} must succeed. */
  private static PullRun passes(
      RunnerHarness runner, OwnerRepo repo, String name, String file, String base)
      throws Exception {
    String head = branch(repo, name, file);
    String pull = new PullAuthor(repo).open(repo, "main", repo, name);
    CheckRecord ran = runner.awaitPullEnded(repo, pull, head, base, "build");
    String log = log(runner, ran);
    assertEquals(CheckStatus.SUCCESS, ran.status(), log);
    return new PullRun(head, pull, log);
  }

  /** Pushes main, whose check must succeed; its log. */
  private static String pushPasses(RunnerHarness runner, OwnerRepo repo) throws Exception {
    String sha = repo.push("main");
    CheckRecord c = runner.awaitEnded(repo, "refs/heads/main", sha, "build");
    String log = log(runner, c);
    assertEquals(CheckStatus.SUCCESS, c.status(), log);
    return log;
  }

  /** How many passes' layers are kept. */
  private static int sets(Path kept) {
    try (java.util.stream.Stream<Path> all = java.nio.file.Files.list(kept)) {
      return (int) all.count();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Commits one file on a new branch off main, pushes it, and goes back to main. */
  private static String branch(OwnerRepo repo, String name, String file) throws Exception {
    repo.git("checkout", "-q", "-b", name, "main");
    String sha = repo.commit(Map.of(file, name + "\n"));
    repo.push(name);
    repo.git("checkout", "-q", "main");
    return sha;
  }

  private static String log(RunnerHarness runner, CheckRecord c) throws Exception {
    return new String(runner.log(c), StandardCharsets.UTF_8);
  }
}
