package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.space.SpaceId;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.testing.Account;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.OwnerRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A private repository renamed while the distributed shape watches it: its records stay in the
 * space it was made in, and the space of the new name holds only a redirect (and has the runner as
 * a member too). Once the operator lists it by its new name, a reconciler and a check-writer that
 * first meet it after the rename file the next push's check in the records' space, where the
 * earlier ones are, not in the space of the new name, and nothing in public. That reconciler checks
 * pulls: it says once that the private repository's pulls are not checked, and never asks the
 * appview about it.
 */
class PrivateRenameDistributedIT {

  @Test
  void aRenamedPrivateRepositorysChecksStayInTheSpaceOfItsRecords() throws Exception {
    Path dir = Files.createTempDirectory("private-rename-distributed-it");
    try (LocalDistributed shape = LocalDistributed.start(LocalDistributed.projectRoot(), dir);
        HarnessSpaceHost host = HarnessSpaceHost.start(shape.pds().plcUrl());
        HarnessAppview appview = HarnessAppview.start(shape.pds().pdsUrl())) {
      Account account = shape.pds().createAccount("renown");
      Map<String, String> env = Map.of("KNOTLESS_SPACE_HOST", host.url().toString());
      OwnerCli.run(
          shape,
          account,
          true,
          env,
          "",
          "create",
          account.handle() + "/before",
          "--private",
          "--runner",
          shape.runner().did());
      OwnerRepo owner =
          OwnerRepo.inSpace(
              account, shape.pds(), host.url(), "before", dir.resolve("owners/before"));
      owner.commit(Map.of(".knotless/workflows/ci.yml", PrivateDistributedIT.CI));
      owner.push("main");
      String key = owner.key();
      shape.watch(account.did(), key, "before");
      shape.withSpaceHost(host.url());
      ServiceProcess writer = shape.startCheckWriter();
      ServiceProcess reconciler = shape.startReconciler(Map.of("knotless.reconciler.poll", "2s"));
      shape.startScheduler();
      Checks.await(
          Duration.ofSeconds(120),
          "the reconciler's first pass, in the space",
          () ->
              Files.readString(reconciler.log())
                  .contains("private; read in the space " + owner.space + " as a member"));
      SpaceId records = owner.space;
      SpaceId renamed = new SpaceId(account.did(), "after");
      String runner = shape.runner().did();
      owner.commit(Map.of("first.txt", "first\n"));
      String first = owner.push("main");
      awaitEnded(owner, records, runner, CheckKeys.push(account.did(), key, MAIN, first, "ci"));

      OwnerCli.run(
          shape, account, true, env, "", "repo", "rename", account.handle() + "/before", "after");
      assertTrue(host.exists(renamed.toString()), "the rename made the space of the new name");
      // The operator lists it by its new name; a reconciler and a check-writer start that never
      // met it by the old one (the writer learns the space from the events, which name the
      // repository by its new name). The reconciler checks pulls, with the merge queue.
      shape.rewatch(account.did(), key, "after");
      writer.stop();
      reconciler.stop();
      shape.withAppview(appview.url(), false);
      shape.startCheckWriter();
      ServiceProcess second =
          shape.startReconciler(
              Map.of(
                  "knotless.reconciler.poll", "2s",
                  "knotless.reconciler.pulls", "true",
                  "knotless.reconciler.queue.enabled", "true"));
      Checks.await(
          Duration.ofSeconds(120),
          "the new reconciler reading it by its new name, in the records' space",
          () ->
              Files.readString(second.log())
                  .contains("after: private; read in the space " + records + " as a member"));
      owner.commit(Map.of("renamed.txt", "renamed\n"));
      String sha = owner.push("main");
      String rkey = CheckKeys.push(account.did(), key, MAIN, sha, "ci");
      CheckRecord check = awaitEnded(owner, records, runner, rkey);
      assertEquals(CheckStatus.SUCCESS, check.status(), check.toString());
      assertTrue(
          check.repo().endsWith("/after"),
          "the check names the repository by its new name: " + check.repo());
      assertFalse(
          owner.spaces.getRecord(renamed, runner, CheckRecord.COLLECTION, rkey).isPresent(),
          "nothing filed in the space of the new name");
      assertEquals(0, host.records(renamed.toString(), runner), "the runner wrote nothing there");
      assertEquals(0, Checks.all(shape).size(), "nothing in the runner's public account");

      // Its pulls: said once, over the passes of both pushes, and the appview never asked.
      String said =
          "after: private, so its pulls are not checked and its merge queue is not landed: the"
              + " appview lists no private repository's pulls";
      String log = Files.readString(second.log());
      assertEquals(1, log.split(java.util.regex.Pattern.quote(said), -1).length - 1, log);
      assertEquals(0, appview.queries(), "no listPulls of a private repository");
    }
  }

  private static final String MAIN = "refs/heads/main";

  private static CheckRecord awaitEnded(OwnerRepo owner, SpaceId space, String runner, String rkey)
      throws Exception {
    CheckRecord[] seen = {null};
    Checks.await(
        Duration.ofSeconds(180),
        "the check " + rkey + " ended in " + space,
        () -> {
          seen[0] =
              owner
                  .spaces
                  .getRecord(space, runner, CheckRecord.COLLECTION, rkey)
                  .map(r -> CheckRecord.fromJson(r.value()))
                  .orElse(null);
          return seen[0] != null && seen[0].status().ended();
        });
    return seen[0];
  }
}
