package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.commit;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.push;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Settings;
import dev.knotless.storage.SpaceRedirects;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.push.Pusher;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.ToolRun;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A private repository renamed with {@code knotless repo rename}, against the reference PDS and the
 * harness's space host: the runner watching it by its old name follows it by its key and checks the
 * next push, made to the new name; a runner started on the new name is led by the space of that
 * name to the space its records stay in, and checks the push after; a runner added by the new name
 * is made a member of both spaces and invited by the name of the records' space.
 */
@WithPds
class PrivateRenameRunnerIT {
  @Test
  void aRenamedPrivateRepositorysNextPushIsCheckedAndARunnerOfTheNewNameFindsIt(
      PdsInstance pds, @org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("rnmown");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "rnmrun").withOAuth()) {
      SpaceNotifyRunnerIT.Owner o =
          new SpaceNotifyRunnerIT.Owner(pds, host, owner, tmp, "before", h.account.did());
      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      List<String> flags = List.of("--poll", "1");
      h.start(flags, owner.handle() + "/before");
      String state = owner.did() + "/" + o.key;
      RunnerHarness.await(
          "the repository watched", () -> new JsonStateStore(h.state()).load(state).isPresent());

      Map<String, String> env = PrivateInvitesIT.ownerEnv(pds, host, owner, tmp);
      ToolRun.Ran renamed =
          PrivateInvitesIT.cli(env, "repo", "rename", owner.handle() + "/before", "after");
      assertEquals(0, renamed.exit(), renamed.all());
      assertTrue(renamed.out().contains("its records stay in the space " + o.space), renamed.all());
      assertTrue(
          o.spaces.members(new SpaceId(owner.did(), "after")).contains(h.account.did()),
          "the runner is a member of the space of the new name too");

      // The owner pushes to the new name, which leads to the space the records stay in.
      RepoAddress after = o.address.renamed("after");
      assertEquals(o.space, SpaceRedirects.records(o.spaces, after));
      Pusher byNewName =
          new Pusher(
              new SpaceRecords(o.spaces, SpaceRedirects.records(o.spaces, after), host.url()),
              StorageCache.at(tmp.resolve("owner/cache-after"), Clock.systemUTC()),
              Clock.systemUTC(),
              Settings.defaults().claimGrace());
      String second = commit(o.work, "second.txt", "two\n");
      push(byNewName, after, o.work);
      o.awaitCheck(second, "the push after the rename, by the runner of the old name");

      // A runner started on the new name finds the same repository, by its key.
      h.started().get(0).stop();
      h.start(flags, owner.handle() + "/after");
      RunnerHarness.await(
          "the runner of the new name watching it",
          () -> h.started().size() == 2 && new JsonStateStore(h.state()).load(state).isPresent());
      String third = commit(o.work, "third.txt", "three\n");
      push(byNewName, after, o.work);
      o.awaitCheck(third, "the push after, by the runner of the new name");

      // A runner added by the new name is made a member of both spaces, and invited by the name
      // of the space its records are in, which the appview's word of writes there names.
      Account other = pds.createAccount("rnmrun2");
      try (HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl())) {
        env.put("KNOTLESS_APPVIEW", appview.url().toString());
        ToolRun.Ran added =
            PrivateInvitesIT.cli(env, "runners", owner.handle() + "/after", "add", other.did());
        assertEquals(0, added.exit(), added.all());
        assertTrue(o.spaces.members(o.space).contains(other.did()), added.all());
        assertTrue(
            o.spaces.members(new SpaceId(owner.did(), "after")).contains(other.did()), added.all());
        var invite = appview.invites().all().get(0);
        assertEquals(other.did(), invite.path("runner").asText());
        assertEquals("before", invite.path("name").asText(), invite.toString());
      }
    }
  }
}
