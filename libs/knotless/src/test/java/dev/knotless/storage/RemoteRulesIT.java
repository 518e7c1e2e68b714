package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.Write;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Redirects, DID pinning and stale snapshots, as a user meets them. */
@WithPds
class RemoteRulesIT {
  /** An anonymous client on the PDS. */
  static final class XrpcClientProbe {
    static dev.knotless.atproto.XrpcClient anonymous(PdsInstance pds) {
      return dev.knotless.atproto.XrpcClient.create(pds.pdsUrl());
    }
  }

  @Test
  void aRenamedRepositoryIsFollowedAndTheHelperSuggestsSetUrl(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("ren");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    String oldUrl = "knotless://" + owner.handle() + "/before";
    me.ok(a, "remote", "add", "origin", oldUrl);
    me.ok(a, "push", "-q", "origin", "main");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    ObjectNode record =
        (ObjectNode) f.client.getRecord(owner.did(), Lexicons.REPO, "before").value();
    String key = record.get("key").asText();
    // A rename rewrites the record. (Identical bytes under the new name, created in the commit
    // that deletes the old one, are unreadable on the reference PDS: they share one block.)
    record.put("description", "renamed from before");
    ObjectNode redirect = JsonNodeFactory.instance.objectNode();
    redirect.put("repo", "at://" + owner.did() + "/" + Lexicons.REPO + "/after");
    redirect.put("key", key);
    redirect.put("createdAt", "2026-11-29T00:00:00Z");
    f.client.applyWrites(
        owner.did(),
        List.of(
            Write.create(Lexicons.REPO, "after", record),
            Write.delete(Lexicons.REPO, "before"),
            Write.create(Lexicons.REDIRECT, "before", redirect)));
    assertTrue(
        f.client.findRecord(owner.did(), Lexicons.REPO, "after").isPresent(),
        "renamed record written");
    assertTrue(
        XrpcClientProbe.anonymous(pds).findRecord(owner.did(), Lexicons.REPO, "after").isPresent(),
        "renamed record readable anonymously");
    String tip = me.commit(a, "b.txt", "b\n");
    GitUser.Run push = me.exec(a, "push", "origin", "main");
    assertEquals(0, push.exit(), push.err());
    assertTrue(
        push.err().contains("git remote set-url origin knotless://" + owner.handle() + "/after"),
        push.err());
    me.ok(tmp, "clone", "-q", "knotless://" + owner.handle() + "/after", "b");
    assertEquals(tip, me.ok(tmp.resolve("b"), "rev-parse", "HEAD").strip());
  }

  @Test
  void aCachedKeyThatNoLongerMatchesIsReplacedAndTheRefsRereadUnderTheNewOne(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("rekey");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    me.ok(a, "push", "-q", "knotless://" + owner.handle() + "/rekeyed", "main");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    RepoAddress repo = f.repo("rekeyed");
    String real = f.reader().read(repo, SnapshotReader.Packs.NONE).repo().key();
    f.cache.putKey(repo, dev.knotless.atproto.Tid.next());
    Snapshot s = f.reader().read(repo, SnapshotReader.Packs.NONE);
    assertEquals(real, s.repo().key());
    assertEquals(1, s.liveRefs().size());
    assertEquals(real, f.cache.key(repo).orElseThrow());
  }

  @Test
  void aRemoteWhoseHandleNowMeansAnotherAccountIsRefused(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("pin");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    me.ok(a, "remote", "add", "origin", "knotless://" + owner.handle() + "/pinned");
    me.ok(a, "push", "-q", "origin", "main");
    assertEquals(owner.did(), me.ok(a, "config", "remote.origin.knotlessdid").strip());
    String other = pds.createAccount("other").did();
    me.ok(a, "config", "remote.origin.knotlessdid", other);
    String refused = me.fails(a, "fetch", "origin");
    assertTrue(refused.contains("was first used with " + other), refused);
  }

  @Test
  void aPushAgainstRefsReadMoreThanTwelveHoursAgoIsRefusedWhole(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("stale");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    me.ok(a, "push", "-q", "knotless://" + owner.handle() + "/stale", "main");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    RepoAddress repo = f.repo("stale");
    Snapshot s = f.reader().read(repo, SnapshotReader.Packs.NONE);
    Snapshot old =
        new Snapshot(
            s.address(),
            s.repo(),
            s.refs(),
            s.newestPacks(),
            s.packsExhausted(),
            s.renamedFrom(),
            s.readAt().minus(Duration.ofHours(13)));
    String tip = me.commit(a, "b.txt", "b\n");
    PushResult r =
        f.pusher()
            .push(
                old,
                Git.at(a.resolve(".git")),
                List.of(new RefUpdate("refs/heads/main", tip, false)));
    assertTrue(r.outcomes().get(0).error().contains("12 hours"), r.toString());
    assertEquals(false, r.landed());
    assertEquals(
        s.liveRefs().get("refs/heads/main").target(),
        f.reader()
            .read(repo, SnapshotReader.Packs.NONE)
            .liveRefs()
            .get("refs/heads/main")
            .target());
  }
}
