package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.PushResult;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the network loses between a pusher and the real PDS: a reply after the write landed, a
 * request before it did, and an {@code uploadBlob} turned away until its rate limit resets.
 */
@WithPds
class LostRepliesIT {
  static final String APPLY_WRITES = "com.atproto.repo.applyWrites";
  static final String UPLOAD_BLOB = "com.atproto.repo.uploadBlob";

  @Test
  void aPushWhoseReplyWasLostAfterTheWriteLandedReportsSuccessNotFetchFirst(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("lost");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path work = me.newRepo(tmp.resolve("work"), "a.txt", "a\n");
    Git local = Git.at(work.resolve(".git"));
    try (FaultyProxy proxy = new FaultyProxy(pds.pdsUrl())) {
      Fixture f = new Fixture(owner, proxy.url(), tmp.resolve("cache"));
      RepoAddress repo = f.repo("lost");
      String first = local.revParse("HEAD");
      proxy.dropReplyOnce(APPLY_WRITES);
      PushResult created = f.push(repo, local, "refs/heads/main", first);
      assertTrue(created.allOk(), "a first push whose reply was lost: " + created);
      assertTrue(created.landed());

      String second = me.commit(work, "b.txt", "b\n");
      proxy.dropReplyOnce(APPLY_WRITES);
      PushResult moved = f.push(repo, local, "refs/heads/main", second);
      assertTrue(moved.allOk(), "a move whose reply was lost: " + moved);
      assertEquals(2, proxy.arrivals(APPLY_WRITES).size(), "each write was sent once");

      Snapshot s =
          new Fixture(null, pds.pdsUrl(), tmp.resolve("reader"))
              .reader()
              .read(repo, SnapshotReader.Packs.NONE);
      assertEquals(second, s.liveRefs().get("refs/heads/main").target());
      // The key the first push minted was kept: the next push goes straight on.
      String third = me.commit(work, "c.txt", "c\n");
      assertTrue(f.push(repo, local, "refs/heads/main", third).allOk());
    }
  }

  @Test
  void aFirstPushCutOffBeforeItsWriteLeavesNoRepositoryAndCanBePushedAgain(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("cut");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path work = me.newRepo(tmp.resolve("work"), "a.txt", "a\n");
    Git local = Git.at(work.resolve(".git"));
    try (FaultyProxy proxy = new FaultyProxy(pds.pdsUrl())) {
      Fixture f = new Fixture(owner, proxy.url(), tmp.resolve("cache"));
      RepoAddress repo = f.repo("cut");
      proxy.dropRequestOnce(APPLY_WRITES);
      IOException e =
          assertThrows(
              IOException.class,
              () -> f.push(repo, local, "refs/heads/main", local.revParse("HEAD")));
      assertTrue(e.getMessage().contains(APPLY_WRITES), e.getMessage());
      assertFalse(repoRecordExists(pds, owner, "cut"), "an aborted first push left a repository");
      assertTrue(f.cache.key(repo).isEmpty(), "no key is cached for a repository never made");

      assertTrue(f.push(repo, local, "refs/heads/main", local.revParse("HEAD")).allOk());
      assertTrue(repoRecordExists(pds, owner, "cut"));
      assertEquals(
          List.of(),
          proxy.arrivals("com.atproto.repo.putRecord"),
          "the repo record rides in the first applyWrites");
    }
  }

  @Test
  void anUploadBlobTurnedAwayWithASoonResetIsSentAgainAtTheResetAndThePushLands(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("soon");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path work = me.newRepo(tmp.resolve("work"), "a.txt", "a\n");
    Git local = Git.at(work.resolve(".git"));
    String big = commitRandom(me, work, 300 * 1024);
    try (FaultyProxy proxy = new FaultyProxy(pds.pdsUrl())) {
      Fixture f = new Fixture(owner, proxy.url(), tmp.resolve("cache"));
      RepoAddress repo = f.repo("soon");
      Instant reset = Instant.ofEpochSecond(Instant.now().getEpochSecond() + 3);
      proxy.rateLimitOnce(UPLOAD_BLOB, reset);
      PushResult r = f.push(repo, local, "refs/heads/main", big);
      assertTrue(r.allOk(), r.toString());
      List<Instant> uploads = proxy.arrivals(UPLOAD_BLOB);
      assertEquals(2, uploads.size(), "the refused part, then the same part again: " + uploads);
      assertFalse(
          uploads.get(1).isBefore(reset), "sent again at " + uploads.get(1) + ", before " + reset);
      Git clone = Fixture.bare(tmp.resolve("clone.git"));
      Fixture reader = new Fixture(null, pds.pdsUrl(), tmp.resolve("reader"));
      reader
          .fetcher()
          .fetch(reader.reader().read(repo, SnapshotReader.Packs.PAGE), clone, List.of(big));
      assertTrue(clone.has(big));
    }
  }

  static boolean repoRecordExists(PdsInstance pds, Account owner, String name) throws IOException {
    return XrpcClient.create(pds.pdsUrl()).findRecord(owner.did(), Lexicons.REPO, name).isPresent();
  }

  /** Commits a file of random bytes, so its pack is as large as the file. */
  static String commitRandom(GitUser me, Path work, int bytes) throws Exception {
    byte[] noise = new byte[bytes];
    new SecureRandom().nextBytes(noise);
    Files.write(work.resolve("noise.bin"), noise);
    me.ok(work, "add", "noise.bin");
    me.ok(work, "commit", "-q", "-m", "noise");
    return me.ok(work, "rev-parse", "HEAD").strip();
  }
}
