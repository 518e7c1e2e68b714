package dev.knotless.runner.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
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
import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.Pusher;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessOAuth;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.ToolRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The all-in-one runner on a private repository, against the reference PDS and the harness's space
 * host: made with {@code knotless create --private --runner}, its pushes heard by {@code --poll}
 * (nothing in a space reaches the firehose, and the sweep is ten minutes away), its check and log
 * filed into the runner's repo in the space for members to read, nothing of it in the runner's
 * public account, and the repository left, saying why, once the runner is no longer a member.
 */
@WithPds
class PrivateRepoRunnerIT {
  static final String MAIN = "refs/heads/main";
  static final String CI = "on: {push: {}}\nsteps:\n  - name: hello\n    run: echo private-hello\n";

  @Test
  void aPrivateRepositorysChecksGoIntoTheSpaceOnly(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("prvown");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "prvrun").withOAuth();
        CapturedLog log = new CapturedLog()) {
      String runner = h.account.did();
      createPrivate(pds, host, owner, tmp, "secret", runner);

      // The owner, a member, reads and writes the space as the storage code does.
      XrpcClient ownerPds = HarnessOAuth.client(pds, owner);
      var ownerSpaces =
          new XrpcSpaceClient(XrpcClient.create(host.url()), ownerPds, Clock.systemUTC());
      SpaceId space = new SpaceId(owner.did(), "secret");
      SpaceRecords records = new SpaceRecords(ownerSpaces, space, host.url());
      RepoAddress address = new RepoAddress(owner.did(), owner.handle(), pds.pdsUrl(), "secret");
      Path work = tmp.resolve("owner/work");
      Files.createDirectories(work);
      git(work, "init", "-q", "-b", "main");
      Pusher pusher =
          new Pusher(
              records,
              StorageCache.at(tmp.resolve("owner/cache"), Clock.systemUTC()),
              Clock.systemUTC(),
              Settings.defaults().claimGrace());
      commit(work, "README.md", "hi\n");
      push(pusher, address, work);
      String key =
          ownerSpaces
              .getRecord(space, owner.did(), "dev.knotless.repo", "secret")
              .orElseThrow()
              .value()
              .path("key")
              .asText();

      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.start(List.of("--poll", "1"), owner.handle() + "/secret");
      RunnerHarness.await(
          "the first pass",
          () -> new JsonStateStore(h.state()).load(owner.did() + "/" + key).isPresent());

      String sha = commit(work, ".knotless/workflows/ci.yml", CI);
      push(pusher, address, work);
      String rkey = CheckKeys.push(owner.did(), key, MAIN, sha, "ci");
      CheckRecord[] seen = {null};
      RunnerHarness.await(
          "the private push's check in the runner's repo in the space (last seen: %s)",
          () -> {
            try {
              Optional<Record> r =
                  ownerSpaces.getRecord(space, runner, CheckRecord.COLLECTION, rkey);
              seen[0] = r.map(x -> CheckRecord.fromJson(x.value())).orElse(null);
              return seen[0] != null && seen[0].status().ended();
            } catch (java.io.IOException e) {
              return false;
            }
          },
          () -> String.valueOf(seen[0]));
      assertEquals(CheckStatus.SUCCESS, seen[0].status(), String.valueOf(seen[0]));
      assertEquals("at://" + owner.did() + "/dev.knotless.repo/secret", seen[0].repo());
      byte[] logBlob = ownerSpaces.getBlob(space, runner, seen[0].log().cid(), 1 << 20);
      assertTrue(
          new String(logBlob, StandardCharsets.UTF_8).contains("private-hello"),
          "the log, read as a member, holds what the step printed");

      // Nothing of it where the public reads: no check in the runner's public account.
      assertTrue(
          h.reader
              .listRecords(runner, CheckRecord.COLLECTION, 100, null, false)
              .records()
              .isEmpty(),
          "the runner's public account holds no check");

      // No longer a member: the runner leaves the repository, saying why, and files nothing.
      ownerSpaces.removeMember(space, runner);
      String later = commit(work, "more.txt", "more\n");
      push(pusher, address, work);
      RunnerHarness.await(
          "the runner to leave the repository",
          () -> log.text().contains("no longer a member of the private repository's space"));
      assertTrue(
          log.text().contains("secret: the runner is no longer a member"),
          "the log line names the repository");
      String leaving = "no longer a member of the private repository's space";
      RunnerHarness.await(
          "the pass that left to end",
          () -> {
            String t = log.text();
            String after = t.substring(t.indexOf(leaving));
            return after.contains(" ended in ") || after.contains(" failed after ");
          });
      String t = log.text();
      assertTrue(
          t.substring(t.indexOf(leaving)).contains(" ended in "),
          "leaving is the pass's end, not a failure to try again: " + t);
      String laterKey = CheckKeys.push(owner.did(), key, MAIN, later, "ci");
      assertTrue(ownerSpaces.getRecord(space, runner, CheckRecord.COLLECTION, laterKey).isEmpty());
      assertTrue(
          h.reader
              .listRecords(runner, CheckRecord.COLLECTION, 100, null, false)
              .records()
              .isEmpty(),
          "still nothing in the runner's public account");
    }
  }

  @Test
  void aPrivateRepositoryNoLongerNamingTheRunnerOrWhoseSpaceIsGoneIsLeft(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("prvgo");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl());
        RunnerHarness h = new RunnerHarness(pds, tmp.resolve("runner"), "prvgr").withOAuth();
        CapturedLog log = new CapturedLog()) {
      String runner = h.account.did();
      createPrivate(pds, host, owner, tmp, "unnamed", runner);
      createPrivate(pds, host, owner, tmp, "deleted", runner);
      XrpcClient ownerPds = HarnessOAuth.client(pds, owner);
      var ownerSpaces =
          new XrpcSpaceClient(XrpcClient.create(host.url()), ownerPds, Clock.systemUTC());

      h.extraEnv.put(PrivateRepos.HOST_ENV, host.url().toString());
      h.start(List.of("--poll", "1"), owner.handle() + "/unnamed", owner.handle() + "/deleted");
      RunnerHarness.await(
          "both read in their spaces",
          () ->
              log.text().contains("/unnamed: private; read")
                  && log.text().contains("/deleted: private; read"));

      // The owner writes the record again, naming no runner; and deletes the other's space.
      SpaceId unnamed = new SpaceId(owner.did(), "unnamed");
      var record =
          (com.fasterxml.jackson.databind.node.ObjectNode)
              ownerSpaces
                  .getRecord(unnamed, owner.did(), "dev.knotless.repo", "unnamed")
                  .orElseThrow()
                  .value();
      assertTrue(record.path("runners").toString().contains(runner), record.toString());
      record.remove("runners");
      ownerSpaces.applyWrites(
          unnamed,
          List.of(dev.knotless.atproto.Write.update("dev.knotless.repo", "unnamed", record)));
      ownerSpaces.deleteSpace(new SpaceId(owner.did(), "deleted"));

      RunnerHarness.await(
          "the runner to leave both",
          () ->
              log.text()
                      .contains(
                          "/unnamed: private, and its record does not name this runner; no longer watching it")
                  && log.text()
                      .contains(
                          "/deleted: the private repository's space "
                              + owner.did()
                              + "/deleted is gone; no longer watching it"));
      assertTrue(
          h.reader
              .listRecords(runner, CheckRecord.COLLECTION, 100, null, false)
              .records()
              .isEmpty(),
          "nothing in the runner's public account");
    }
  }

  /** {@code knotless create <owner>/<name> --private --runner <runner>}, as the owner. */
  static void createPrivate(
      PdsInstance pds, HarnessSpaceHost host, Account owner, Path tmp, String name, String runner) {
    Map<String, String> env = ToolRun.oauthEnv(pds, owner, tmp.resolve("owner"));
    env.put("XDG_CONFIG_HOME", tmp.resolve("owner/.config").toString());
    env.put(PrivateRepos.HOST_ENV, host.url().toString());
    var made =
        ToolRun.run(
            env,
            ctx ->
                KnotlessCli.run(
                    List.of("create", owner.handle() + "/" + name, "--private", "--runner", runner),
                    ctx));
    assertEquals(0, made.exit(), made.err());
  }

  static String commit(Path work, String file, String text) throws Exception {
    Path p = work.resolve(file);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
    git(work, "add", file);
    git(work, "commit", "-q", "-m", "add " + file);
    return git(work, "rev-parse", "HEAD").strip();
  }

  static void push(Pusher pusher, RepoAddress address, Path work) throws Exception {
    String sha = git(work, "rev-parse", "HEAD").strip();
    PushResult r =
        pusher.push(address, Git.at(work.resolve(".git")), List.of(new RefUpdate(MAIN, sha, true)));
    assertTrue(r.allOk(), String.valueOf(r));
  }

  static String git(Path work, String... args) throws Exception {
    List<String> cmd =
        new java.util.ArrayList<>(
            List.of("git", "-c", "user.name=Owner", "-c", "user.email=owner@example.test"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile()).redirectErrorStream(true);
    pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
    pb.environment().put("HOME", work.getParent().toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), "git " + String.join(" ", args) + ": " + out);
    return out;
  }
}
