package dev.knotless.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.space.SpaceId;
import dev.knotless.atproto.space.XrpcSpaceClient;
import dev.knotless.storage.Lexicons;
import dev.knotless.storage.PrivateRepos;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import dev.knotless.testing.infra.HarnessSpaceHost;
import dev.knotless.testing.infra.ToolRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A private repository end to end, against the reference PDS and the harness's space host: made
 * with {@code knotless create --private}, pushed, cloned and fetched by a member through plain git
 * and git-remote-knotless, refused to an account that is not a member (and to one no longer a
 * member), none of it in the owner's public records, and deleted with its space.
 */
@WithPds
class PrivateRepositoryIT {

  record Git(int exit, String out, String err) {}

  /** {@code as} logged in with OAuth (as a private repository needs), or no one when null. */
  static Map<String, String> person(PdsInstance pds, Account as, Path home, HarnessSpaceHost host) {
    return tools(
        as == null ? ToolRun.env(pds, null, home) : ToolRun.oauthEnv(pds, as, home), home, host);
  }

  /** {@code as} logged in with its password, as an app password logs in. */
  private static Map<String, String> withPassword(
      PdsInstance pds, Account as, Path home, HarnessSpaceHost host) {
    return tools(ToolRun.env(pds, as, home), home, host);
  }

  private static Map<String, String> tools(
      Map<String, String> env, Path home, HarnessSpaceHost host) {
    String bin =
        System.getProperty("knotless.bin", Path.of("../../bin").toAbsolutePath().toString());
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    env.put("XDG_CONFIG_HOME", home.resolve(".config").toString());
    env.put("KNOTLESS_COMPACT", "off");
    env.put("KNOTLESS_HELPER_DAEMON", "off");
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("GIT_AUTHOR_NAME", "Test Person");
    env.put("GIT_AUTHOR_EMAIL", "person@example.test");
    env.put("GIT_COMMITTER_NAME", "Test Person");
    env.put("GIT_COMMITTER_EMAIL", "person@example.test");
    env.put(PrivateRepos.HOST_ENV, host.url().toString());
    return env;
  }

  static Git git(Map<String, String> env, Path dir, String... args) throws Exception {
    Files.createDirectories(dir);
    ProcessBuilder pb = new ProcessBuilder(concat("git", args)).directory(dir.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    Process p = pb.start();
    p.getOutputStream().close();
    var out = p.getInputStream().readAllBytes();
    var err = p.getErrorStream().readAllBytes();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("git " + String.join(" ", args) + " did not end");
    }
    return new Git(
        p.exitValue(),
        new String(out, StandardCharsets.UTF_8),
        new String(err, StandardCharsets.UTF_8));
  }

  static String ok(Map<String, String> env, Path dir, String... args) throws Exception {
    Git g = git(env, dir, args);
    assertEquals(0, g.exit(), "git " + String.join(" ", args) + ": " + g.err());
    return g.out();
  }

  private static String[] concat(String first, String[] rest) {
    String[] all = new String[rest.length + 1];
    all[0] = first;
    System.arraycopy(rest, 0, all, 1, rest.length);
    return all;
  }

  static ToolRun.Ran knotless(Map<String, String> env, String... argv) {
    return ToolRun.run(env, ctx -> KnotlessCli.run(List.of(argv), ctx));
  }

  static String commit(Map<String, String> env, Path repo, String file, String text)
      throws Exception {
    Files.writeString(repo.resolve(file), text);
    ok(env, repo, "add", file);
    ok(env, repo, "commit", "-q", "-m", "add " + file);
    return ok(env, repo, "rev-parse", "HEAD").strip();
  }

  /** {@code knotless repo compact} run eleven minutes from now, when the packs are old enough. */
  private static ToolRun.Ran compactLater(Map<String, String> env, String url) {
    Clock later = Clock.offset(Clock.systemUTC(), java.time.Duration.ofMinutes(11));
    var out = new java.io.ByteArrayOutputStream();
    var err = new java.io.ByteArrayOutputStream();
    int exit =
        KnotlessCli.run(
            List.of("repo", "compact", url),
            new dev.knotless.storage.cli.CliContext(
                env,
                new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(err, true, StandardCharsets.UTF_8),
                () -> {
                  var cache = dev.knotless.storage.StorageCache.fromEnvironment(env, later);
                  return new dev.knotless.storage.KnotlessRepos(
                      dev.knotless.atproto.identity.IdentityResolver.fromEnvironment(
                          env, cache.local()),
                      cache,
                      dev.knotless.atproto.cache.SessionStore.fromEnvironment(env),
                      later,
                      dev.knotless.storage.Settings.fromEnvironment(env),
                      env);
                }));
    return new ToolRun.Ran(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void anOwnersPrivateRepositoryIsReadByMembersOnlyAndGoesWithItsSpace(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("prvo");
    Account member = pds.createAccount("prvm");
    Account stranger = pds.createAccount("prvs");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl())) {
      Map<String, String> me = person(pds, owner, tmp.resolve("owner"), host);
      Map<String, String> them = person(pds, member, tmp.resolve("member"), host);
      Map<String, String> other = person(pds, stranger, tmp.resolve("stranger"), host);
      String url = "knotless://" + owner.handle() + "/secret";
      String space = owner.did() + "/secret";

      // The runner named is made a member: here the member's account stands for one.
      ToolRun.Ran made =
          knotless(me, "create", owner.handle() + "/secret", "--private", "--runner", member.did());
      assertEquals(0, made.exit(), made.all());
      assertTrue(made.out().contains("private"), made.out());
      assertTrue(host.exists(space));
      for (String flag : List.of("--private", "--no-runner")) {
        ToolRun.Ran again = knotless(me, "create", owner.handle() + "/secret", flag);
        assertNotEquals(0, again.exit(), flag);
        assertTrue(again.all().contains("already exists"), flag + ": " + again.all());
      }

      Path work = tmp.resolve("work");
      ok(me, work, "init", "-q", "-b", "main");
      String first = commit(me, work, "a.txt", "a\n");
      ok(me, work, "remote", "add", "origin", url);
      ok(me, work, "push", "-q", "origin", "main");

      // Nothing of it is in the owner's public records.
      XrpcClient anyone = XrpcClient.create(pds.pdsUrl());
      for (String c : List.of(Lexicons.REPO, Lexicons.REF, Lexicons.PACK)) {
        assertEquals(List.of(), anyone.listRecords(owner.did(), c, 100, null, false).records(), c);
      }
      assertTrue(host.records(space, owner.did()) >= 3, "repo, ref and pack in the space");

      ok(them, tmp, "clone", "-q", url, "theirs");
      Path theirs = tmp.resolve("theirs");
      assertEquals(first, ok(them, theirs, "rev-parse", "HEAD").strip());
      // Each git operation is a process of its own; the credentials saved in each person's
      // config directory serve the next ones.
      int given = host.credentialsGiven();

      // A pack past the inline limit goes over blobs, which only members read.
      byte[] noise = new byte[400 * 1024];
      new java.util.Random(37).nextBytes(noise);
      Files.write(work.resolve("noise.bin"), noise);
      ok(me, work, "add", "noise.bin");
      String second = commit(me, work, "b.txt", "b\n");
      ok(me, work, "push", "-q", "origin", "main");
      assertTrue(host.blobs(space, owner.did()) >= 1, "the big pack is in the space's blobs");
      ok(them, theirs, "pull", "-q", "--ff-only");
      assertEquals(second, ok(them, theirs, "rev-parse", "HEAD").strip());
      assertArrayEquals(noise, Files.readAllBytes(theirs.resolve("noise.bin")));
      assertEquals(given, host.credentialsGiven(), "no credential asked for again");
      assertTrue(
          Files.readString(tmp.resolve("member/config/spaces.json")).contains(space),
          "the member's credential is kept beside its session");

      // Compaction folds the packs in the space, and a member's clone reads the result.
      ToolRun.Ran folded = compactLater(me, url);
      assertEquals(0, folded.exit(), folded.all());
      assertTrue(folded.out().startsWith("folded 2 packs"), folded.out());
      ok(them, tmp, "clone", "-q", url, "afterCompaction");
      assertEquals(second, ok(them, tmp.resolve("afterCompaction"), "rev-parse", "HEAD").strip());

      // Not a member: a refusal naming why, never an empty repository.
      Git refused = git(other, tmp, "clone", "-q", url, "strangers");
      assertNotEquals(0, refused.exit());
      assertTrue(refused.err().contains(url + " is private"), refused.err());
      assertTrue(refused.err().contains(stranger.did() + " is not a member"), refused.err());
      assertFalse(Files.exists(tmp.resolve("strangers").resolve("a.txt")));

      // A member on an app password: no token for the space, and told to log in with OAuth.
      Map<String, String> onPassword = withPassword(pds, member, tmp.resolve("member-pw"), host);
      Git appPassword = git(onPassword, tmp, "clone", "-q", url, "onPassword");
      assertNotEquals(0, appPassword.exit());
      assertTrue(appPassword.err().contains(url + " is private"), appPassword.err());
      assertTrue(
          appPassword.err().contains("an app password reads no private repository"),
          appPassword.err());
      assertTrue(appPassword.err().contains("`knotless login`"), appPassword.err());
      assertFalse(Files.exists(tmp.resolve("onPassword").resolve("a.txt")));
      ToolRun.Ran notMade =
          knotless(
              withPassword(pds, owner, tmp.resolve("owner-pw"), host),
              "create",
              owner.handle() + "/unmade",
              "--private",
              "--no-runner");
      assertNotEquals(0, notMade.exit());
      assertTrue(notMade.all().contains("`knotless login`"), notMade.all());
      assertFalse(host.exists(owner.did() + "/unmade"));
      assertTrue(anyone.findRecord(owner.did(), Lexicons.REPO, "unmade").isEmpty());

      // No one logged in: nothing can be read, and git is told why the repository looks empty.
      Map<String, String> nobody = person(pds, null, tmp.resolve("nobody"), host);
      Git anonymous = git(nobody, tmp, "clone", "-q", url, "anonymous");
      assertFalse(Files.exists(tmp.resolve("anonymous").resolve("a.txt")));
      assertTrue(anonymous.err().contains("if it is private, log in"), anonymous.err());

      // With a space host named, the owner's new public repository is still made in public.
      Path open = tmp.resolve("open");
      ok(me, open, "init", "-q", "-b", "main");
      commit(me, open, "o.txt", "o\n");
      ok(me, open, "push", "-q", "knotless://" + owner.handle() + "/open", "main");
      assertTrue(anyone.findRecord(owner.did(), Lexicons.REPO, "open").isPresent());
      assertFalse(host.exists(owner.did() + "/open"));

      // A member removed reads no more.
      XrpcClient ownerPds = dev.knotless.testing.infra.HarnessOAuth.client(pds, owner);
      var spaces = new XrpcSpaceClient(XrpcClient.create(host.url()), ownerPds, Clock.systemUTC());
      spaces.removeMember(SpaceId.parse(space), member.did());
      Git removed = git(them, theirs, "fetch", "-q", "origin");
      assertNotEquals(0, removed.exit());
      assertTrue(removed.err().contains(member.did() + " is not a member"), removed.err());

      // Deleting the repository deletes its space and everything in it.
      ToolRun.Ran gone = knotless(me, "repo", "delete", owner.handle() + "/secret", "--yes");
      assertEquals(0, gone.exit(), gone.all());
      assertTrue(gone.out().contains("its space " + space), gone.out());
      assertFalse(host.exists(space));
      // Deleting the account's knotless data deletes the spaces it owns first.
      assertEquals(
          0, knotless(me, "create", owner.handle() + "/other", "--private", "--no-runner").exit());
      ToolRun.Ran all = knotless(me, "account", "delete-data", "--yes");
      assertEquals(0, all.exit(), all.all());
      assertTrue(all.out().contains("1 space of private repositories"), all.out());
      assertTrue(
          all.out().contains("deleted space " + owner.did() + "/other and everything in it"),
          all.out());
      assertFalse(host.exists(owner.did() + "/other"));
      assertFalse(anyone.findRecord(owner.did(), Lexicons.REPO, "open").isPresent());

      Git afterDelete = git(me, tmp, "clone", "-q", url, "afterDelete");
      assertEquals(0, afterDelete.exit(), afterDelete.err());
      assertNotEquals(
          0,
          git(me, tmp.resolve("afterDelete"), "rev-parse", "--verify", "-q", "HEAD").exit(),
          "nothing of the deleted history is cloned");
    }
  }

  @Test
  void aRenamedPrivateRepositoryIsReadByItsNewNameWhileItsRecordsStayInItsSpace(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("prno");
    Account member = pds.createAccount("prnm");
    Account stranger = pds.createAccount("prns");
    try (HarnessSpaceHost host = HarnessSpaceHost.start(pds.plcUrl())) {
      Map<String, String> me = person(pds, owner, tmp.resolve("owner"), host);
      Map<String, String> them = person(pds, member, tmp.resolve("member"), host);
      Map<String, String> other = person(pds, stranger, tmp.resolve("stranger"), host);
      String oldUrl = "knotless://" + owner.handle() + "/draft";
      String newUrl = "knotless://" + owner.handle() + "/final";
      String kept = owner.did() + "/draft";
      String named = owner.did() + "/final";
      assertEquals(
          0,
          knotless(me, "create", owner.handle() + "/draft", "--private", "--runner", member.did())
              .exit());
      Path work = tmp.resolve("work");
      ok(me, work, "init", "-q", "-b", "main");
      String first = commit(me, work, "a.txt", "a\n");
      ok(me, work, "push", "-q", oldUrl, "main");

      ToolRun.Ran renamed = knotless(me, "repo", "rename", owner.handle() + "/draft", "final");
      assertEquals(0, renamed.exit(), renamed.all());
      assertTrue(renamed.out().contains("renamed " + oldUrl + " to " + newUrl), renamed.all());
      assertTrue(renamed.out().contains("its records stay in the space " + kept), renamed.all());
      assertTrue(host.exists(named), "the space of the new name holds the redirect");
      // A second rename to a name taken is refused before anything is written.
      assertEquals(
          0, knotless(me, "create", owner.handle() + "/taken", "--private", "--no-runner").exit());
      ToolRun.Ran taken = knotless(me, "repo", "rename", owner.handle() + "/final", "taken");
      assertNotEquals(0, taken.exit());
      assertTrue(taken.all().contains("already exists"), taken.all());

      // A member clones it by its new name; the owner pushes to the new name, and the old name
      // still leads to the same repository.
      ok(them, tmp, "clone", "-q", newUrl, "byNew");
      assertEquals(first, ok(them, tmp.resolve("byNew"), "rev-parse", "HEAD").strip());
      String second = commit(me, work, "b.txt", "b\n");
      ok(me, work, "push", "-q", newUrl, "main");
      ok(them, tmp, "clone", "-q", oldUrl, "byOld");
      assertEquals(second, ok(them, tmp.resolve("byOld"), "rev-parse", "HEAD").strip());

      // Not a member: refused by the new name too, never shown an empty repository.
      Git refused = git(other, tmp, "clone", "-q", newUrl, "strangers");
      assertNotEquals(0, refused.exit());
      assertTrue(refused.err().contains(newUrl + " is private"), refused.err());
      assertFalse(Files.exists(tmp.resolve("strangers").resolve("a.txt")));
      // Nothing of it, the rename included, is in the owner's public records.
      XrpcClient anyone = XrpcClient.create(pds.pdsUrl());
      for (String c : List.of(Lexicons.REPO, Lexicons.REDIRECT, Lexicons.REF)) {
        assertEquals(List.of(), anyone.listRecords(owner.did(), c, 100, null, false).records(), c);
      }

      // Deleting it by its new name deletes both spaces.
      ToolRun.Ran gone = knotless(me, "repo", "delete", owner.handle() + "/final", "--yes");
      assertEquals(0, gone.exit(), gone.all());
      assertFalse(host.exists(kept));
      assertFalse(host.exists(named));
      assertTrue(host.exists(owner.did() + "/taken"), "another repository's space stays");
    }
  }
}
