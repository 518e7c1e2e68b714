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
      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      repo.commit(Map.of(".knotless/workflows/build.yml", BUILD, "README.md", "hello\n"));
      repo.push("main");
      runner.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      runner.start(flags(tmp, "--pulls"), repo.label());
      runner.awaitWatched(repo);
      String base = repo.git("rev-parse", "main").strip();

      String head = branch(repo, "feature", "a.txt");
      String pull = new PullAuthor(repo).open(repo, "main", repo, "feature");
      CheckRecord ran = runner.awaitPullEnded(repo, pull, head, base, "build");
      String pullLog = log(runner, ran);
      assertEquals(CheckStatus.SUCCESS, ran.status(), pullLog);
      assertTrue(
          pullLog.matches(
              "(?s).*cache /cache: \\d+ bytes kept for the push that lands this pass.*"),
          pullLog);

      // Another pull's pass keeps its layers too, till the pull is closed without landing.
      String other = branch(repo, "other", "c.txt");
      String pull2 = new PullAuthor(repo).open(repo, "main", repo, "other");
      assertEquals(
          CheckStatus.SUCCESS, runner.awaitPullEnded(repo, pull2, other, base, "build").status());
      Path kept = tmp.resolve("caches").resolve("kept");
      assertEquals(2, sets(kept));
      new PullAuthor(repo).state(repo, pull2, "closed");
      branch(repo, "nudge", "d.txt"); // a push rings the repository's door: a pass lists pulls
      RunnerHarness.await(
          "the layers of the pull closed unmerged forgotten", () -> sets(kept) == 1);

      repo.git("merge", "-q", "--ff-only", "feature");
      repo.push("main");
      CheckRecord took = runner.awaitEnded(repo, "refs/heads/main", head, "build");
      String tookLog = log(runner, took);
      assertEquals(CheckStatus.SUCCESS, took.status(), tookLog);
      assertTrue(tookLog.contains("its result is taken and nothing is run again"), tookLog);
      assertTrue(tookLog.contains("\ncache /cache: promoted, "), tookLog);

      String next = repo.commit(Map.of("b.txt", "b\n"));
      repo.push("main");
      CheckRecord warm = runner.awaitEnded(repo, "refs/heads/main", next, "build");
      String warmLog = log(runner, warm);
      assertEquals(CheckStatus.SUCCESS, warm.status(), warmLog);
      assertTrue(
          warmLog.contains("warm from " + head), "the pull's layers were not promoted: " + warmLog);
    }
  }

  @Test
  void onAPullsOnlyRunnerATrustedPullsPassPromotesAndTheNextPullStartsWarm(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      repo.commit(Map.of(".knotless/workflows/build.yml", BUILD, "README.md", "hello\n"));
      repo.push("main");
      runner.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      runner.start(flags(tmp, "--pulls-only"), repo.label());
      runner.awaitWatched(repo);
      String base = repo.git("rev-parse", "main").strip();

      String head1 = branch(repo, "one", "a.txt");
      String pull1 = new PullAuthor(repo).open(repo, "main", repo, "one");
      CheckRecord first = runner.awaitPullEnded(repo, pull1, head1, base, "build");
      String firstLog = log(runner, first);
      assertEquals(CheckStatus.SUCCESS, first.status(), firstLog);
      assertTrue(firstLog.contains("cold"), firstLog);
      assertTrue(firstLog.contains("\ncache /cache: promoted, "), firstLog);

      String head2 = branch(repo, "two", "b.txt");
      String pull2 = new PullAuthor(repo).open(repo, "main", repo, "two");
      CheckRecord second = runner.awaitPullEnded(repo, pull2, head2, base, "build");
      String secondLog = log(runner, second);
      assertEquals(CheckStatus.SUCCESS, second.status(), secondLog);
      assertTrue(
          secondLog.contains("warm from " + head1),
          "the first pull's pass did not make the base: " + secondLog);
    }
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
