package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.commit;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.git;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.push;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.atproto.space.XrpcSpaceClient;
import dev.knotless.cli.KnotlessCli;
import dev.knotless.runner.check.CheckKeys;
import dev.knotless.runner.check.CheckRecord;
import dev.knotless.runner.check.CheckStatus;
import dev.knotless.runner.state.JsonStateStore;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.storage.RepoAddress;
import dev.knotless.storage.Settings;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.invites.RunnerInvites;
import dev.knotless.storage.push.Pusher;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.HarnessOAuth;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.ToolRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Invites to private repositories, against the reference PDS, the harness's space host and its
 * appview: the owner's {@code knotless runners <url> add} makes the runner a member of the space
 * and leaves it an invite; a runner with {@code --discover}, named no repository, reads its
 * invites, watches the repository, runs its pushes, and {@code knotless checks} shows the checks
 * from the runner's repo in the space. An invite the runner cannot act on (a stranger's, left
 * before the runner is a member) is passed over. A restart reads invites from where the last
 * reading ended, and still watches what it found; {@code knotless runners <url> remove} has it
 * leave the repository, forget it, and ask its space no more.
 */
@WithPds
class PrivateInvitesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String MAIN = "refs/heads/main";
  private static final String LIST_REPOS = "com.atproto.space.listRepos";
  private static final String CI =
      "on: {push: {}}\nsteps:\n  - name: hello\n    run: echo invited-hello\n";

  @Test
  void aRunnerInvitedByRunnersAddRunsThePrivateRepositoryAndARestartDoesNotReadOldInvites(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("invown");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        HarnessAppview appview = HarnessAppview.start(pds.pdsUrl(), pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "invrun").withOAuth();
        CountingProxy spaces = CountingProxy.start(host.url());
        CapturedLog log = new CapturedLog()) {
      String runner = h.account.did();
      Map<String, String> ownerEnv = ownerEnv(pds, host, owner, tmp);
      ownerEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      String url = owner.handle() + "/hidden";
      ToolRun.Ran made = cli(ownerEnv, "create", url, "--private", "--no-runner");
      assertEquals(0, made.exit(), made.all());

      // The owner pushes a workflow before any runner is named.
      XrpcClient ownerPds = HarnessOAuth.client(pds, owner);
      var ownerSpaces =
          new XrpcSpaceClient(XrpcClient.create(host.url()), ownerPds, Clock.systemUTC());
      SpaceId space = new SpaceId(owner.did(), "hidden");
      RepoAddress address = new RepoAddress(owner.did(), owner.handle(), pds.pdsUrl(), "hidden");
      Path work = tmp.resolve("owner/work");
      Files.createDirectories(work);
      git(work, "init", "-q", "-b", "main");
      Pusher pusher =
          new Pusher(
              new SpaceRecords(ownerSpaces, space, host.url()),
              StorageCache.at(tmp.resolve("owner/pushcache"), Clock.systemUTC()),
              Clock.systemUTC(),
              Settings.defaults().claimGrace());
      String first = commit(work, ".knotless/workflows/ci.yml", CI);
      push(pusher, address, work);
      String key =
          ownerSpaces
              .getRecord(space, owner.did(), "dev.knotless.repo", "hidden")
              .orElseThrow()
              .value()
              .path("key")
              .asText();

      // The runner names no repository: it can only find this one by its invite.
      // The runner reaches the space host through a proxy that counts what it asks.
      h.extraEnv.put(PrivateRepos.HOST_ENV, spaces.url().toString());
      h.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      List<String> flags = List.of("--poll", "1", "--sweep", "1", "--discover");
      h.start(flags);
      RunnerHarness.await("a reading of invites", () -> !appview.invites().listings().isEmpty());

      // A member invited to a repository whose record does not name it passes it over, and does
      // not poll its space.
      assertEquals(
          0, cli(ownerEnv, "create", owner.handle() + "/other", "--private", "--no-runner").exit());
      ownerSpaces.addMember(new SpaceId(owner.did(), "other"), runner);
      new RunnerInvites(XrpcClient.create(appview.url()), ownerPds)
          .invite(owner.did(), "other", runner);
      RunnerHarness.await(
          "the invite to a repository not naming the runner passed over",
          () ->
              log.text().contains(owner.did() + "/other: invited by " + owner.did() + ", but ")
                  && log.text().contains("; passed over"));
      // Watching nothing yet, the runner asks no space at all.
      spaces.reset();
      awaitReadings(appview, 1);
      spaces.reset();
      awaitReadings(appview, 2);
      assertEquals(0, spaces.requests(LIST_REPOS), spaces.byMethod().toString());

      // An invite anyone left, before the runner is a member: only where to look, passed over.
      Account stranger = pds.createAccount("invstr");
      XrpcClient strangerPds = HarnessOAuth.client(pds, stranger);
      new RunnerInvites(XrpcClient.create(appview.url()), strangerPds)
          .invite(owner.did(), "hidden", runner);
      RunnerHarness.await(
          "the stranger's invite passed over",
          () ->
              log.text()
                  .contains(
                      owner.did()
                          + "/hidden: invited by "
                          + stranger.did()
                          + ", but it is private, and the runner ("
                          + runner
                          + ") is not a member of its space"));
      RunnerHarness.await(
          "the reading to move past it",
          () -> !new JsonStateStore(h.state()).runner().invited().isEmpty());

      ToolRun.Ran added = cli(ownerEnv, "runners", url, "add", runner);
      assertEquals(0, added.exit(), added.all());
      assertTrue(added.out().contains("added " + runner + " to "), added.all());
      assertTrue(
          added.out().contains("made " + runner + " a member of its space, and invited it"),
          added.all());
      assertTrue(ownerSpaces.members(space).contains(runner));
      RunnerHarness.await(
          "the runner to watch the repository it was invited to",
          () ->
              log.text()
                  .contains(
                      owner.did()
                          + "/hidden: invited by "
                          + owner.did()
                          + ", names this runner; watching it as "
                          + owner.did()
                          + "/"
                          + key));
      // Found, it runs its default branch's tip once, as any repository found does.
      assertEquals(CheckStatus.SUCCESS, awaitCheck(ownerSpaces, space, runner, owner, key, first));

      String second = commit(work, "more.txt", "more\n");
      push(pusher, address, work);
      assertEquals(CheckStatus.SUCCESS, awaitCheck(ownerSpaces, space, runner, owner, key, second));

      // knotless checks reads them from the runner's repo in the space, as the owner.
      ToolRun.Ran checks = cli(ownerEnv, "checks", url, "--json");
      assertEquals(0, checks.exit(), checks.all());
      JsonNode listed = JSON.readTree(checks.out());
      List<String> rkeys = new ArrayList<>();
      for (JsonNode c : listed) {
        assertEquals(runner, c.path("runner").asText());
        assertEquals("success", c.path("record").path("status").asText(), c.toString());
        rkeys.add(c.path("rkey").asText());
      }
      assertTrue(
          rkeys.contains(CheckKeys.push(owner.did(), key, MAIN, second, "ci")), rkeys.toString());
      ToolRun.Ran logged =
          cli(ownerEnv, "log", url, CheckKeys.push(owner.did(), key, MAIN, second, "ci"));
      assertTrue(logged.out().contains("invited-hello"), logged.all());
      assertTrue(
          h.reader
              .listRecords(runner, CheckRecord.COLLECTION, 100, null, false)
              .records()
              .isEmpty(),
          "nothing in the runner's public account");

      String cursor = new JsonStateStore(h.state()).runner().invited();
      assertFalse(cursor.isEmpty(), "where the reading of invites ended is kept");
      h.started().get(0).stop();

      // A restart reads invites from where the last reading ended, and watches what it found.
      int before = appview.invites().listings().size();
      h.start(flags);
      RunnerHarness.await(
          "a reading of invites after the restart",
          () -> appview.invites().listings().size() > before);
      List<String> after = appview.invites().listings();
      assertEquals(
          cursor,
          after.get(before),
          "the restarted runner asked from where it had ended: " + after);
      assertFalse(after.subList(before, after.size()).contains(""), after.toString());
      String third = commit(work, "third.txt", "three\n");
      push(pusher, address, work);
      assertEquals(CheckStatus.SUCCESS, awaitCheck(ownerSpaces, space, runner, owner, key, third));
      assertTrue(
          log.text().contains(owner.did() + "/hidden: found before, names this runner"),
          "watched again from the state, not from an invite read again");

      // Removed from the record, the runner leaves it, forgets it, and asks its space no more.
      assertTrue(spaces.requests(LIST_REPOS) > 0, "the space was polled while watched");
      ToolRun.Ran removed = cli(ownerEnv, "runners", url, "remove", runner);
      assertEquals(0, removed.exit(), removed.all());
      RunnerHarness.await(
          "the runner to leave the repository no longer naming it",
          () ->
              log.text()
                  .contains(
                      owner.did()
                          + "/hidden: private, and its record does not name this runner; no"
                          + " longer watching it"));
      RunnerHarness.await(
          "the repository dropped from the state's discovered",
          () -> new JsonStateStore(h.state()).runner().discovered().isEmpty());
      // Two readings of invites later (a second each), with --poll 1, a poll would have asked.
      spaces.reset();
      awaitReadings(appview, 1);
      spaces.reset();
      awaitReadings(appview, 2);
      assertEquals(0, spaces.requests(LIST_REPOS), spaces.byMethod().toString());
    }
  }

  @Test
  void withoutAnAppviewRunnersAddStillMakesTheRunnerAMemberAndWarnsAndRemoveKeepsIt(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("invwarn");
    Account other = pds.createAccount("invoth");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl())) {
      Map<String, String> ownerEnv = ownerEnv(pds, host, owner, tmp);
      String url = owner.handle() + "/quiet";
      assertEquals(0, cli(ownerEnv, "create", url, "--private", "--no-runner").exit());

      ToolRun.Ran added = cli(ownerEnv, "runners", url, "add", other.did());
      assertEquals(0, added.exit(), added.all());
      assertTrue(
          added.err().contains(other.did() + " was not told of it: no appview is named"),
          added.all());
      XrpcClient ownerPds = HarnessOAuth.client(pds, owner);
      var ownerSpaces =
          new XrpcSpaceClient(XrpcClient.create(host.url()), ownerPds, Clock.systemUTC());
      SpaceId space = new SpaceId(owner.did(), "quiet");
      assertTrue(ownerSpaces.members(space).contains(other.did()));
      ToolRun.Ran listed = cli(ownerEnv, "runners", url);
      assertEquals(other.did(), listed.out().strip(), listed.all());

      ToolRun.Ran removed = cli(ownerEnv, "runners", url, "remove", other.did());
      assertEquals(0, removed.exit(), removed.all());
      assertTrue(
          removed.out().contains(other.did() + " stays a member of its space"), removed.all());
      assertEquals("", cli(ownerEnv, "runners", url).out().strip());
      assertTrue(ownerSpaces.members(space).contains(other.did()));
    }
  }

  private static void awaitReadings(HarnessAppview appview, int more) throws Exception {
    int now = appview.invites().listings().size();
    RunnerHarness.await(
        more + " more readings of invites",
        () -> appview.invites().listings().size() >= now + more);
  }

  private static CheckStatus awaitCheck(
      XrpcSpaceClient spaces, SpaceId space, String runner, Account owner, String key, String sha)
      throws Exception {
    String rkey = CheckKeys.push(owner.did(), key, MAIN, sha, "ci");
    CheckRecord[] seen = {null};
    RunnerHarness.await(
        "the check of " + sha.substring(0, 8) + " in the runner's repo in the space (seen: %s)",
        () -> {
          try {
            seen[0] =
                spaces
                    .getRecord(space, runner, CheckRecord.COLLECTION, rkey)
                    .map(x -> CheckRecord.fromJson(x.value()))
                    .orElse(null);
            return seen[0] != null && seen[0].status().ended();
          } catch (java.io.IOException e) {
            return false;
          }
        },
        () -> String.valueOf(seen[0]));
    return seen[0].status();
  }

  static Map<String, String> ownerEnv(
      PdsInstance pds, HarnessSpaceHost host, Account owner, Path tmp) {
    Map<String, String> env = ToolRun.oauthEnv(pds, owner, tmp.resolve("owner-" + owner.handle()));
    env.put("XDG_CONFIG_HOME", tmp.resolve("owner-" + owner.handle() + "/.config").toString());
    env.put(PrivateRepos.HOST_ENV, host.url().toString());
    return env;
  }

  static ToolRun.Ran cli(Map<String, String> env, String... args) {
    return ToolRun.run(env, ctx -> KnotlessCli.run(List.of(args), ctx));
  }
}
