package dev.knotless.runner.e2e;

import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.CI;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.MAIN;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.commit;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.createPrivate;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.git;
import static dev.knotless.runner.e2e.PrivateRepoRunnerIT.push;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.SpaceRecords;
import dev.knotless.atproto.space.XrpcSpaceClient;
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
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessAppview;
import dev.knotless.testing.infra.HarnessOAuth;
import dev.knotless.testing.infra.HarnessSpaceHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The all-in-one runner hearing of a private repository's pushes through the appview, against the
 * reference PDS, the harness's space host and the harness appview: the runner asks the space to
 * tell the appview's {@code #knotless_appview} service (a did:plc in the test PLC) of its writes,
 * and awaits {@code dev.knotless.awaitSpaceWrites}, so with {@code --poll 300} a push is still
 * checked within seconds; a word of a space it does not watch is refused and costs nothing; and
 * with the appview down, {@code --poll} finds the push, saying once that it fell back; and a space
 * found by an invite after the start is registered at once, so its first push is heard so too.
 */
@WithPds
class SpaceNotifyRunnerIT {
  /** The most a push heard through the appview may take to be checked: far below --poll 300. */
  private static final Duration PROMPT = Duration.ofSeconds(15);

  private static final String HEARD = "the appview passes on writes in private repositories";
  private static final String FELL_BACK =
      "awaiting private repositories' writes through the appview failed";

  @Test
  void aPushHeardThroughTheAppviewIsCheckedWithinSecondsThoughThePollIsFiveMinutes(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("ntfown");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        HarnessAppview appview = HarnessAppview.startHearingSpaces(pds.pdsUrl(), pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "ntfrun").withOAuth();
        CapturedLog log = new CapturedLog()) {
      appview.hearSpacesFrom(host.did());
      Owner o = new Owner(pds, host, owner, tmp, "quick", h.account.did());
      o.invite(appview);
      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      h.start(List.of("--poll", "300"), owner.handle() + "/quick");
      String space = owner.did() + "/quick";
      RunnerHarness.await(
          "the space registered and the appview awaited",
          () ->
              log.text().contains("the space " + space + " tells " + appview.did())
                  && log.text().contains(HEARD)
                  && new JsonStateStore(h.state()).load(owner.did() + "/" + o.key).isPresent());

      long first = o.pushAndTime(h, "ci.txt");
      System.out.printf(
          "push-to-check latency, heard through the appview (--poll 300): %d ms%n", first);
      assertTrue(first < PROMPT.toMillis(), "checked in " + first + " ms");
      assertTrue(host.notifications()[0] >= 1, "the host told the appview");

      // A word of a space the runner watches nothing in is refused, and loses nothing: a stranger
      // invites the runner to a space of their own (anyone may), and the host's word of a write
      // there reaches the runner through the appview.
      Account other = pds.createAccount("ntfoth");
      XrpcClient otherPds = HarnessOAuth.client(pds, other);
      new RunnerInvites(XrpcClient.create(appview.url()), otherPds)
          .invite(other.did(), "elsewhere", h.account.did());
      String stranger = other.did() + "/elsewhere";
      host.notifyWrite(
          appview.did() + "#knotless_appview", stranger, other.did(), List.of(h.account.did()));
      RunnerHarness.await(
          "the stranger's space refused",
          () ->
              log.text()
                  .contains(
                      "passed on a write in "
                          + stranger
                          + ", a space this runner watches no repository in; ignored"));
      long second = o.pushAndTime(h, "again.txt");
      System.out.printf(
          "push-to-check latency, heard through the appview after a stranger's word: %d ms%n",
          second);
      assertTrue(second < PROMPT.toMillis(), "checked in " + second + " ms");
      assertEquals(1, count(log.text(), HEARD), "the appview answered all along");
    }
  }

  @Test
  void aSpaceFoundByAnInviteAfterTheStartIsRegisteredAtOnceSoItsFirstPushIsHeardThroughTheAppview(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("ntfinv");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        HarnessAppview appview = HarnessAppview.startHearingSpaces(pds.pdsUrl(), pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "ntfirun").withOAuth();
        CapturedLog log = new CapturedLog()) {
      appview.hearSpacesFrom(host.did());
      Owner o = new Owner(pds, host, owner, tmp, "late", h.account.did());
      String tip = git(o.work, "rev-parse", "HEAD").strip();
      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      // Named no repository, it finds this one only by the invite, a few seconds after its start;
      // the minute's look at registrations is then most of a minute away.
      h.start(List.of("--poll", "300", "--sweep", "1", "--discover"));
      RunnerHarness.await("a reading of invites", () -> !appview.invites().listings().isEmpty());
      o.invite(appview);
      // Found, it runs the default branch's tip; by the time that run is filed, the space tells
      // the appview of its writes.
      o.awaitCheck(tip, "the tip");
      String space = owner.did() + "/late";
      assertTrue(
          log.text().contains("the space " + space + " tells " + appview.did()),
          "registered at once, not at the next minute's look: " + log.text());

      long first = o.pushAndTime(h, "first.txt");
      System.out.printf(
          "push-to-check latency, the first push after an invite (--poll 300): %d ms%n", first);
      assertTrue(first < PROMPT.toMillis(), "checked in " + first + " ms");
    }
  }

  @Test
  void aMemberRunnerTheOwnerDidNotInviteHearsNothingThroughTheAppviewAndItsPollFindsThePush(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("ntfuni");
    Account stranger = pds.createAccount("ntfunis");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        HarnessAppview appview = HarnessAppview.startHearingSpaces(pds.pdsUrl(), pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "ntfunir").withOAuth();
        CapturedLog log = new CapturedLog()) {
      appview.hearSpacesFrom(host.did());
      // A member (the record names it), named on the command line, but not invited by the owner.
      Owner o = new Owner(pds, host, owner, tmp, "uninvited", h.account.did());
      String runner = h.account.did();
      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      h.start(List.of("--poll", "5"), owner.handle() + "/uninvited");
      String space = owner.did() + "/uninvited";
      RunnerHarness.await(
          "the space registered and the appview awaited",
          () ->
              log.text().contains("the space " + space + " tells " + appview.did())
                  && log.text().contains(HEARD)
                  && new JsonStateStore(h.state()).load(owner.did() + "/" + o.key).isPresent());
      // An invite a stranger left does not count: only the owner's does.
      XrpcClient strangerPds = HarnessOAuth.client(pds, stranger);
      new RunnerInvites(XrpcClient.create(appview.url()), strangerPds)
          .invite(owner.did(), "uninvited", runner);

      int told = host.notifications()[0];
      long polled = o.pushAndTime(h, "polled.txt");
      System.out.printf(
          "push-to-check latency, a runner not invited, found by --poll 5: %d ms%n", polled);
      assertTrue(polled < 5_000 + PROMPT.toMillis(), "checked in " + polled + " ms");
      RunnerHarness.await("the host told the appview", () -> host.notifications()[0] > told);
      assertEquals(
          0, appview.spaceWritesPassedTo(runner), "nothing passed on to a runner not invited");

      // Once the owner invites it, the appview passes the next push on.
      o.invite(appview);
      o.pushAndTime(h, "heard.txt");
      RunnerHarness.await(
          "the push passed on to the invited runner",
          () -> appview.spaceWritesPassedTo(runner) > 0);
    }
  }

  @Test
  void withTheAppviewDownThePollFindsThePushSayingOnceThatItFellBack(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("ntfdown");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        HarnessAppview appview = HarnessAppview.startHearingSpaces(pds.pdsUrl(), pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "ntfdrun").withOAuth();
        CapturedLog log = new CapturedLog()) {
      appview.hearSpacesFrom(host.did());
      Owner o = new Owner(pds, host, owner, tmp, "slow", h.account.did());
      o.invite(appview);
      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.extraEnv.put("KNOTLESS_APPVIEW", appview.url().toString());
      h.start(List.of("--poll", "5"), owner.handle() + "/slow");
      RunnerHarness.await(
          "the appview awaited",
          () ->
              log.text().contains(HEARD)
                  && new JsonStateStore(h.state()).load(owner.did() + "/" + o.key).isPresent());

      appview.setDown(true);
      RunnerHarness.await("the runner to fall back", () -> log.text().contains(FELL_BACK));
      long polled = o.pushAndTime(h, "down.txt");
      System.out.printf(
          "push-to-check latency, the appview down, found by --poll 5: %d ms%n", polled);
      assertTrue(polled < 5_000 + PROMPT.toMillis(), "checked in " + polled + " ms");
      // The runner kept asking the appview, and said it fell back once, not at each ask or poll.
      int refused = appview.refusedWhileDown();
      RunnerHarness.await("two more asks refused", () -> appview.refusedWhileDown() >= refused + 2);
      assertEquals(1, count(log.text(), FELL_BACK), log.text());

      // Up again: the runner hears through it again.
      appview.setDown(false);
      RunnerHarness.await("the appview heard again", () -> count(log.text(), HEARD) == 2);
      long again = o.pushAndTime(h, "up.txt");
      System.out.printf(
          "push-to-check latency, heard through the appview again (--poll 5): %d ms%n", again);
      assertTrue(again < PROMPT.toMillis(), "checked in " + again + " ms");
    }
  }

  private static int count(String text, String what) {
    int n = 0;
    for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }

  /** A private repository, its workflow pushed, and its owner reading the runner's checks. */
  static final class Owner {
    final XrpcSpaceClient spaces;
    final SpaceId space;
    final RepoAddress address;
    final Path work;
    final Pusher pusher;
    final String runner;
    final String key;
    final XrpcClient ownerPds;

    Owner(PdsInstance pds, HarnessSpaceHost host, Account owner, Path tmp, String name, String run)
        throws Exception {
      createPrivate(pds, host, owner, tmp, name, run);
      ownerPds = HarnessOAuth.client(pds, owner);
      spaces = new XrpcSpaceClient(XrpcClient.create(host.url()), ownerPds, Clock.systemUTC());
      space = new SpaceId(owner.did(), name);
      address = new RepoAddress(owner.did(), owner.handle(), pds.pdsUrl(), name);
      work = tmp.resolve("owner/" + name);
      Files.createDirectories(work);
      git(work, "init", "-q", "-b", "main");
      pusher =
          new Pusher(
              new SpaceRecords(spaces, space, host.url()),
              StorageCache.at(tmp.resolve("owner/cache-" + name), Clock.systemUTC()),
              Clock.systemUTC(),
              Settings.defaults().claimGrace());
      runner = run;
      commit(work, ".knotless/workflows/ci.yml", CI);
      push(pusher, address, work);
      key =
          spaces
              .getRecord(space, owner.did(), "dev.knotless.repo", name)
              .orElseThrow()
              .value()
              .path("key")
              .asText();
    }

    /** Invites the runner at {@code appview}, as the owner: only then does it pass writes on. */
    void invite(HarnessAppview appview) throws Exception {
      new RunnerInvites(XrpcClient.create(appview.url()), ownerPds)
          .invite(space.owner(), space.name(), runner);
    }

    /**
     * Commits {@code file}, pushes, and waits for the runner's check of it to end, a success.
     *
     * @return the milliseconds from the push's end to the check's first record in the space
     */
    long pushAndTime(RunnerHarness h, String file) throws Exception {
      String sha = commit(work, file, file + "\n");
      push(pusher, address, work);
      long pushed = System.nanoTime();
      long filed = awaitCheck(sha, file);
      return (filed - pushed) / 1_000_000;
    }

    /**
     * Waits for the runner's check of {@code sha} to end, a success.
     *
     * @return when (nanoTime) the check's first record was seen in the space
     */
    long awaitCheck(String sha, String what) throws Exception {
      String rkey = CheckKeys.push(address.did(), key, MAIN, sha, "ci");
      long[] filed = {0};
      CheckRecord[] seen = {null};
      RunnerHarness.await(
          "the check of " + what + " (last seen: %s)",
          () -> {
            try {
              seen[0] =
                  spaces
                      .getRecord(space, runner, CheckRecord.COLLECTION, rkey)
                      .map(x -> CheckRecord.fromJson(x.value()))
                      .orElse(null);
            } catch (java.io.IOException e) {
              return false;
            }
            if (seen[0] != null && filed[0] == 0) {
              filed[0] = System.nanoTime();
            }
            return seen[0] != null && seen[0].status().ended();
          },
          () -> String.valueOf(seen[0]));
      assertEquals(CheckStatus.SUCCESS, seen[0].status(), String.valueOf(seen[0]));
      return filed[0];
    }
  }
}
