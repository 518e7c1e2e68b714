package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.MergeGateIT.knotless;
import static dev.knotless.runner.e2e.MergeGateIT.tip;
import static dev.knotless.testing.infra.ToolRun.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.storage.merge.PullReader;
import dev.knotless.testing.LocalDocker;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.OwnerRepo;
import dev.knotless.testing.infra.PullAuthor;
import dev.knotless.testing.infra.ToolRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code knotless merge --wait} with a real runner ({@code --pulls}, the docker executor) checking
 * the pull: the owner waits on a stranger's pull no runner has run, merge asks for one run, the
 * runner runs it, and merge pushes the very merge commit the runner checked out.
 */
@WithPds
class MergeGateRunnerIT {

  @BeforeAll
  static void daemon() {
    LocalDocker.ensure();
  }

  @Test
  void waitingOnAStrangersPullAsksForOneRunAndMergesTheCommitTheRunnerChecked(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl());
        RunnerHarness runner = new RunnerHarness(pds, tmp.resolve("runner"), "run")) {
      OwnerRepo repo =
          new OwnerRepo(pds.createAccount("own"), pds.pdsUrl(), "app", tmp.resolve("owner"));
      repo.commit(
          Map.of(
              "README.md",
              "hello\n",
              ".knotless/workflows/ci.yml",
              "on: {pull: {base: [refs/heads/main]}}\n"
                  + "image: knotless-test/busybox:1\n"
                  + "steps: [{name: s, run: 'test -e x.txt'}]\n"));
      repo.push("main");
      Map<String, String> owner = env(pds, repo.account, tmp.resolve("cli"));
      assertEquals(0, knotless(owner, "runners", repo.label(), "add", runner.account.did()).exit());
      runner.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      runner.start(List.of("--executor", "docker", "--pulls"), repo.label());
      runner.awaitWatched(repo);

      OwnerRepo fork =
          new OwnerRepo(
              pds.createAccount("stranger"), pds.pdsUrl(), "app-fork", tmp.resolve("fork"));
      fork.git("fetch", "-q", repo.workTree().toString(), "main");
      fork.git("reset", "-q", "--hard", "FETCH_HEAD");
      fork.commit(Map.of("x.txt", "the stranger's change\n"));
      String head = fork.push("fix");
      String base = repo.commit(Map.of("docs.md", "docs\n"));
      repo.push("main");
      String pull = new PullAuthor(fork).open(repo, "main", fork, "fix");
      // The runner has seen the pull and passed it over: a stranger's pull waits for the owner.
      String stateKey = repo.account.did() + "/" + repo.key();
      RunnerHarness.await(
          "the runner to pass over " + pull,
          () -> {
            try {
              return new JsonStateStore(runner.state())
                  .load(stateKey)
                  .map(s -> s.pulls().containsKey(pull))
                  .orElse(false);
            } catch (Exception e) {
              return false;
            }
          });
      assertTrue(runner.pullChecks(repo, pull).isEmpty(), "not run before the owner asks");

      CompletableFuture<ToolRun.Ran> waited =
          CompletableFuture.supplyAsync(
              () -> knotless(owner, "merge", pull, "--wait", "--every", "1", "--timeout", "120"));
      ToolRun.Ran ran = waited.get(150, TimeUnit.SECONDS);
      assertEquals(0, ran.exit(), ran.all());
      assertTrue(
          ran.out().contains("not checked yet: asked the runners to run " + pull), ran.out());

      CheckRecord c = runner.pullCheck(repo, pull, head, base, "ci");
      assertEquals(CheckStatus.SUCCESS, c.status(), String.valueOf(c));
      String log = new String(runner.log(c), StandardCharsets.UTF_8);
      Matcher m = Pattern.compile("==> checked at ([0-9a-f]{40})").matcher(log);
      assertTrue(m.find(), log);
      String checked = m.group(1);
      assertTrue(
          ran.out().contains("at " + checked + " (a merge commit, the one the runners checked)"),
          ran.out());
      assertEquals(checked, tip(pds, repo, "main"), "main is at the commit the runner checked");
      assertEquals(
          1,
          PullReader.scan(
                  XrpcClient.create(pds.pdsUrl()),
                  repo.account.did(),
                  "dev.knotless.rerun",
                  repo.key() + ".")
              .size(),
          "one rerun request, however long merge waited");
    }
  }
}
