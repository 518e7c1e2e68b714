package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.storage.git.Git;
import dev.knotless.storage.mirror.Mirror;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner's shared mirror of a repository, synced from the real PDS. */
@WithPds
class MirrorIT {

  @Test
  void aSyncSetsTheRefsExactlyWritesTheCommitGraphAndKeepsGcOff(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Setup s = new Setup(pds, tmp);
    String main = s.commit("a.txt", "a\n");
    s.push("refs/heads/main", main);
    s.push("refs/heads/gone", main);
    s.sync();
    s.delete("refs/heads/gone");
    String next = s.commit("b.txt", "b\n");
    s.push("refs/heads/main", next);

    Mirror m = s.sync();
    assertEquals(Map.of("refs/heads/main", next), m.git().refs(), "the snapshot's refs, no more");
    assertTrue(
        Files.exists(m.dir().resolve("objects/info/commit-graphs/commit-graph-chain")),
        "a split commit-graph is written");
    assertEquals(
        "0",
        new String(m.git().run(null, "config", "gc.auto"), StandardCharsets.UTF_8).strip(),
        "git never gcs on its own");
  }

  @Test
  void aLockFileLeftByAKilledGitIsRemovedUnderTheRefsLock(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Setup s = new Setup(pds, tmp);
    String one = s.commit("a.txt", "a\n");
    s.push("refs/heads/main", one);
    Mirror m = s.sync();
    Path stale = m.dir().resolve("refs/heads/main.lock");
    Files.createDirectories(stale.getParent());
    Files.writeString(stale, "left by a git that was killed\n");
    String two = s.commit("b.txt", "b\n");
    s.push("refs/heads/main", two);

    s.sync();
    assertFalse(Files.exists(stale));
    assertEquals(two, m.git().refs().get("refs/heads/main"), "the update went through");
  }

  @Test
  void pastFiftyPacksASyncRepacksIntoOne(PdsInstance pds, @TempDir Path tmp) throws Exception {
    Setup s = new Setup(pds, tmp);
    String one = s.commit("a.txt", "a\n");
    s.push("refs/heads/main", one);
    Mirror m = s.sync();
    for (int i = 0; i <= Mirror.MAX_PACKS; i++) {
      // One pack per object, as many small fetches leave them.
      byte[] sha =
          m.git()
              .run(
                  ("object " + i + "\n").getBytes(StandardCharsets.UTF_8),
                  "hash-object",
                  "-w",
                  "--stdin");
      m.git().run(sha, "pack-objects", "-q", m.dir().resolve("objects/pack/pack").toString());
    }
    assertTrue(packs(m) > Mirror.MAX_PACKS, "set up: " + packs(m) + " packs");
    String two = s.commit("b.txt", "b\n");
    s.push("refs/heads/main", two);

    s.sync();
    assertEquals(1, packs(m), "repacked");
    assertTrue(m.git().has(two) && m.git().has(one));
  }

  @Test
  void syncsRacingOnOneMirrorTakeTurnsAndAgree(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Setup s = new Setup(pds, tmp);
    String head = null;
    for (int i = 0; i < 5; i++) {
      head = s.commit("f" + i + ".txt", i + "\n");
      s.push("refs/heads/b" + i, head);
    }
    ExecutorService pool = Executors.newFixedThreadPool(6);
    List<Future<Mirror>> racing = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      racing.add(pool.submit((Callable<Mirror>) s::sync));
    }
    for (Future<Mirror> f : racing) {
      Mirror m = f.get();
      assertEquals(5, m.git().refs().size(), m.git().refs().toString());
    }
    pool.shutdown();
    Mirror m = racing.get(0).get();
    assertEquals(head, m.git().refs().get("refs/heads/b4"));
    m.git().run(null, "fsck", "--connectivity-only", "--no-progress");
  }

  @Test
  void aPushedPackWithAHoleInItsHistoryFailsTheSyncAndMovesNoRefBegunOrNot(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Setup s = new Setup(pds, tmp);
    String parent = s.local.revParse("HEAD");
    String tip = s.commit("b.txt", "b\n");
    // A pack of the tip alone, claiming no bases, and a ref to it: no pack holds its parent.
    byte[] pack =
        s.local.run(
            (tip + "\n^" + parent + "\n").getBytes(StandardCharsets.UTF_8),
            "pack-objects",
            "--revs",
            "--stdout",
            "-q");
    String key = dev.knotless.atproto.Tid.next();
    String now = java.time.Instant.now().toString();
    var p =
        new dev.knotless.storage.records.PackRecord(
            Keys.pack(key, dev.knotless.atproto.Tid.next()),
            List.of(tip),
            List.of(),
            dev.knotless.storage.pack.PackPlacement.objectCount(pack),
            pack.length,
            pack,
            List.of(),
            List.of(),
            now);
    var repoRecord = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    repoRecord.put("key", key).put("defaultBranch", "main").put("createdAt", now);
    var ref =
        new dev.knotless.storage.records.RefRecord(
            Keys.ref(key, "refs/heads/main"), "refs/heads/main", tip, 1, p.rkey(), now, now, null);
    s.owner.client.applyWrites(
        s.owner.owner.did(),
        List.of(
            dev.knotless.atproto.Write.create(Lexicons.REPO, "holed", repoRecord),
            dev.knotless.atproto.Write.create(Lexicons.PACK, p.rkey(), p.toJson()),
            dev.knotless.atproto.Write.create(Lexicons.REF, ref.rkey(), ref.toJson())));
    Snapshot snap = s.runner.reader().read(s.owner.repo("holed"), SnapshotReader.Packs.NEWEST);
    Mirror m = Mirror.open(s.runner.cache.dir(), snap.address().did(), snap.repo().key());

    Mirror.Syncing begun = m.begin(snap, s.runner.fetcher());
    assertTrue(m.git().has(tip), "the pushed commit is there to read while its history is checked");
    java.io.IOException checked =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.IOException.class, begun::awaitChecked);
    assertTrue(
        checked.getMessage().startsWith("the remote has no pack holding "), checked.getMessage());
    java.io.IOException all =
        org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, begun::await);
    assertEquals(checked.getMessage(), all.getMessage(), "the same failure, from either wait");
    assertEquals(Map.of(), m.git().refs(), "no ref is set to the holed history");

    // Again, now that the pushed commit is present: its history is still checked, and fails.
    java.io.IOException again =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.IOException.class, () -> m.syncRefs(snap, s.runner.fetcher()));
    assertEquals(checked.getMessage(), again.getMessage());
    assertEquals(Map.of(), m.git().refs());

    // And as a clone fetches it, into an empty repository: the wanted tip is no proof of itself.
    Git fresh = Git.at(tmp.resolve("fresh.git"));
    fresh.run(null, "init", "--quiet", "--bare", fresh.gitDir().toString());
    java.io.IOException cloned =
        org.junit.jupiter.api.Assertions.assertThrows(
            java.io.IOException.class, () -> s.runner.fetcher().fetch(snap, fresh, List.of(tip)));
    assertEquals(checked.getMessage(), cloned.getMessage());
  }

  @Test
  void refsReadFromTheirFilesAreTheRefsGitLists(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Setup s = new Setup(pds, tmp);
    String one = s.commit("a.txt", "a\n");
    s.push("refs/heads/main", one);
    s.push("refs/tags/v1", one);
    Mirror m = s.sync();
    // Some refs packed, as a git gc by hand would leave them; one then moved, so loose again.
    m.git().run(null, "pack-refs", "--all");
    String two = s.commit("b.txt", "b\n");
    s.push("refs/heads/main", two);
    s.push("refs/heads/topic/x", two);

    Mirror.Syncing begun =
        m.begin(s.runner.reader().read(s.repo, SnapshotReader.Packs.NEWEST), s.runner.fetcher());
    assertEquals(
        Map.of("refs/heads/main", one, "refs/tags/v1", one),
        begun.before(),
        "the refs before the sync, packed ones included");
    begun.await();
    assertEquals(
        Map.of("refs/heads/main", two, "refs/tags/v1", one, "refs/heads/topic/x", two),
        m.git().refs());
  }

  private static long packs(Mirror m) throws Exception {
    try (Stream<Path> s = Files.list(m.dir().resolve("objects/pack"))) {
      return s.filter(p -> p.toString().endsWith(".pack")).count();
    }
  }

  /** An owner's repository pushed from a local clone, and a runner's cache holding its mirror. */
  private static final class Setup {
    final GitUser me;
    final Path work;
    final Git local;
    final Fixture owner;
    final Fixture runner;
    final RepoAddress repo;

    Setup(PdsInstance pds, Path tmp) throws Exception {
      Account account = pds.createAccount("mirror");
      me = new GitUser(pds, account, tmp.resolve("home"));
      work = me.newRepo(tmp.resolve("work"), "README", "hello\n");
      local = Git.at(work.resolve(".git"));
      owner = new Fixture(account, pds.pdsUrl(), tmp.resolve("owner-cache"));
      runner = new Fixture(null, pds.pdsUrl(), tmp.resolve("runner-cache"));
      repo = owner.repo("mirrored");
    }

    String commit(String file, String text) throws Exception {
      return me.commit(work, file, text);
    }

    void push(String ref, String target) throws Exception {
      assertTrue(
          owner
              .pusher()
              .push(
                  repo, local, List.of(new dev.knotless.storage.push.RefUpdate(ref, target, true)))
              .allOk());
    }

    void delete(String ref) throws Exception {
      assertTrue(
          owner
              .pusher()
              .push(repo, local, List.of(new dev.knotless.storage.push.RefUpdate(ref, null, true)))
              .allOk());
    }

    Mirror sync() throws Exception {
      Snapshot snap = runner.reader().read(repo, SnapshotReader.Packs.NEWEST);
      Mirror m = Mirror.open(runner.cache.dir(), snap.address().did(), snap.repo().key());
      m.sync(snap, runner.fetcher());
      return m;
    }
  }
}
