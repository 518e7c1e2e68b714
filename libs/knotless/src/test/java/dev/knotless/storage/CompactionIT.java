package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.Record;
import dev.knotless.atproto.XrpcException;
import dev.knotless.storage.compact.Compactor;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.records.ClaimRecord;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.storage.records.RefRecord;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithPds
class CompactionIT {

  @Test
  void aCloneAfterCompactionWorksWhenAYoungPackNamesTheTipOfADeletedBranch(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("fold");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    String url = "knotless://" + owner.handle() + "/folded";
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    me.ok(a, "remote", "add", "origin", url);
    me.ok(a, "push", "-q", "origin", "main");
    me.ok(a, "checkout", "-q", "-b", "feature");
    String feature = me.commit(a, "f.txt", "feature\n");
    me.ok(a, "push", "-q", "origin", "feature");
    Instant cut = Instant.now();
    // A young pack: topic on top of feature, pushed while feature still was a branch.
    me.ok(a, "checkout", "-q", "-b", "topic");
    String topic = me.commit(a, "t.txt", "topic\n");
    me.ok(a, "push", "-q", "origin", "topic");
    me.ok(a, "push", "-q", "origin", "--delete", "feature");

    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    RepoAddress repo = f.repo("folded");
    Clock later = Clock.fixed(cut.plus(Duration.ofMinutes(10)).plusMillis(1), ZoneOffset.UTC);
    Compactor.Result r = f.compactor(later).compact(repo, false);
    assertNull(r.skipped());
    assertEquals(2, r.packsFolded());
    List<PackRecord> packs = packs(f, repo);
    assertEquals(2, packs.size(), "the fold and the young pack");
    PackRecord fold =
        packs.stream().filter(p -> !p.supersedes().isEmpty()).findFirst().orElseThrow();
    assertEquals(2, fold.supersedes().size());
    // One tip per live ref (main, topic); the deleted feature's tip rides in it, listed as none.
    String main = me.ok(a, "rev-parse", "main").strip();
    assertEquals(
        List.of(main, topic).stream().sorted().toList(), fold.tips().stream().sorted().toList());
    assertFalse(fold.tips().contains(feature));

    me.ok(tmp, "clone", "-q", "--no-checkout", url, "fresh");
    Path fresh = tmp.resolve("fresh");
    assertEquals(topic, me.ok(fresh, "rev-parse", "origin/topic").strip());
    me.ok(fresh, "fsck", "--no-dangling");
    assertTrue(me.ok(fresh, "show", "origin/topic:f.txt").contains("feature"));
  }

  @Test
  void aCompactionWithTooFewOldPacksDeletesNothingAndTheDueCheckCountsToTheThreshold(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("young");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    me.ok(a, "push", "-q", "knotless://" + owner.handle() + "/young", "main");
    me.commit(a, "b.txt", "b\n");
    me.ok(a, "push", "-q", "knotless://" + owner.handle() + "/young", "main");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    RepoAddress repo = f.repo("young");
    assertTrue(
        f.compactor(Clock.systemUTC()).compact(repo, false).skipped().contains("ten minutes"));
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(11));
    assertTrue(f.compactor(later).compact(repo, true).skipped().contains("threshold"));
    assertEquals(2, packs(f, repo).size());
  }

  @Test
  void aFetchThatLosesAPackToACompactionMidWayRecoversByItsRestart(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("midway");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    byte[] noise = new byte[300_000];
    new Random(3).nextBytes(noise);
    Files.write(a.resolve("noise.bin"), noise);
    me.ok(a, "add", "noise.bin");
    me.ok(a, "commit", "-q", "-m", "big");
    String url = "knotless://" + owner.handle() + "/midway";
    me.ok(a, "push", "-q", url, "main");
    String tip = me.commit(a, "b.txt", "b\n");
    me.ok(a, "push", "-q", url, "main");

    Fixture reader = new Fixture(null, pds.pdsUrl(), tmp.resolve("reader-cache"));
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    RepoAddress repo = f.repo("midway");
    // The reader lists the packs (the big one over blobs) ...
    Snapshot listed = reader.reader().read(repo, SnapshotReader.Packs.NEWEST);
    assertTrue(listed.newestPacks().stream().anyMatch(p -> !p.inline()));
    // ... then a compaction folds them and their blobs go before it downloads.
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(11));
    assertEquals(2, f.compactor(later).compact(repo, false).packsFolded());
    PackRecord big = listed.newestPacks().stream().filter(p -> !p.inline()).findFirst().get();
    assertThrows(
        XrpcException.class, () -> reader.client.getBlob(owner.did(), big.parts().get(0).cid()));
    Git clone = Fixture.bare(tmp.resolve("clone.git"));
    reader.fetcher().fetch(listed, clone, List.of(tip));
    clone.run(null, "update-ref", "refs/heads/main", tip);
    assertArrayEquals(noise, clone.run(null, "show", tip + ":noise.bin"));
    assertFalse(clone.firstMissingReachable(List.of(tip)).isPresent());
  }

  @Test
  void claimsADayOldArePrunedWithNoFoldToMakeAndEachClaimNamedItsOwnRefsPack(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("prune");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    String url = "knotless://" + owner.handle() + "/pruned";
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    me.ok(a, "checkout", "-q", "-b", "next");
    me.commit(a, "b.txt", "b\n");
    // One pack: main one commit behind next.
    me.ok(a, "push", "-q", url, "main", "next");
    // main moves to next's commit and next goes: two claims, no pack.
    me.ok(a, "push", "-q", url, "next:main", ":next");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    RepoAddress repo = f.repo("pruned");
    Snapshot snap = f.reader().read(repo, SnapshotReader.Packs.NONE);
    String key = snap.repo().key();
    List<ClaimRecord> claims = claims(f, repo, key);
    assertEquals(2, claims.size());
    RefRecord main = snap.liveRefs().get("refs/heads/main");
    ClaimRecord moved = claims.stream().filter(c -> c.to() != null).findFirst().orElseThrow();
    assertEquals(main.pack(), moved.pack(), "the claim names the pack its ref's record names");
    assertEquals(packs(f, repo).get(0).rkey(), moved.pack());

    Clock dayOn = Clock.offset(Clock.systemUTC(), Duration.ofHours(25));
    Compactor.Result r = f.compactor(dayOn).compact(repo, false);
    assertEquals(0, r.packsFolded(), "one pack is no fold");
    assertEquals(2, r.claimsDeleted());
    assertEquals(List.of(), claims(f, repo, key));
    assertEquals(1, packs(f, repo).size());
    assertTrue(f.compactor(dayOn).compact(repo, false).skipped().contains("no claim a day old"));
    me.ok(tmp, "clone", "-q", url, "fresh");
    assertEquals(
        me.ok(a, "rev-parse", "next").strip(),
        me.ok(tmp.resolve("fresh"), "rev-parse", "HEAD").strip());
  }

  static List<ClaimRecord> claims(Fixture f, RepoAddress repo, String key) throws Exception {
    List<ClaimRecord> out = new ArrayList<>();
    for (Record r : RangeScanner.scan(f.reader().source(repo, Lexicons.CLAIM), key)) {
      out.add(ClaimRecord.parse(r.uri(), r.rkey(), r.value()));
    }
    return out;
  }

  static List<PackRecord> packs(Fixture f, RepoAddress repo) throws Exception {
    String key = f.reader().read(repo, SnapshotReader.Packs.NONE).repo().key();
    List<PackRecord> out = new ArrayList<>();
    for (Record r : RangeScanner.scan(f.reader().source(repo, Lexicons.PACK), key)) {
      out.add(PackRecord.parse(r.uri(), r.rkey(), r.value()));
    }
    return out;
  }
}
