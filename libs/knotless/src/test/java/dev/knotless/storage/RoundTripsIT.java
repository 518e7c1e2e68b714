package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.storage.commit.Change;
import dev.knotless.storage.commit.CommitBuilder;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Round trips counted through a proxy that adds latency, as a distant PDS would. */
@WithPds
class RoundTripsIT {
  /**
   * The proxy's added latency. Requests sent together must overlap at the proxy to count as one
   * round trip; on a loaded 2-core machine a 50 ms delay was once not enough for two reads started
   * together, so the modelled distance is a quarter second.
   */
  private static final Duration LATENCY = Duration.ofMillis(250);

  @Test
  void warmPushIsTwoRoundTripsAndSnapshotsOneWithTheKeyCachedTwoWithout(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("rt");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path work = me.newRepo(tmp.resolve("work"), "a.txt", "a\n");
    Git local = Git.at(work.resolve(".git"));
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl(), LATENCY)) {
      Fixture f = new Fixture(owner, proxy.url(), tmp.resolve("cache"));
      RepoAddress repo = f.repo("counted");
      String first = local.revParse("HEAD");
      assertTrue(f.push(repo, local, "refs/heads/main", first).allOk());

      String second = me.commit(work, "b.txt", "b\n");
      proxy.reset();
      assertTrue(f.push(repo, local, "refs/heads/main", second).allOk());
      assertEquals(2, proxy.roundTrips(), "warm push: " + proxy.byMethod());

      proxy.reset();
      Snapshot warm = f.reader().read(repo, SnapshotReader.Packs.NONE);
      assertEquals(1, proxy.roundTrips(), "snapshot with the key cached: " + proxy.byMethod());
      assertEquals(second, warm.liveRefs().get("refs/heads/main").target());

      Fixture cold = new Fixture(owner, proxy.url(), tmp.resolve("cold-cache"));
      proxy.reset();
      cold.reader().read(repo, SnapshotReader.Packs.NONE);
      assertEquals(2, proxy.roundTrips(), "snapshot without a cached key: " + proxy.byMethod());

      // A reader in step with the remote fetches a small push in the snapshot's round trip.
      Fixture reader = new Fixture(null, proxy.url(), tmp.resolve("reader-cache"));
      Git clone = Fixture.bare(tmp.resolve("clone.git"));
      Snapshot s = reader.reader().read(repo, SnapshotReader.Packs.PAGE);
      reader.fetcher().fetch(s, clone, List.of(second));
      clone.run(null, "update-ref", "refs/heads/main", second);
      String third = me.commit(work, "c.txt", "c\n");
      assertTrue(f.push(repo, local, "refs/heads/main", third).allOk());
      proxy.reset();
      Snapshot next = reader.reader().read(repo, SnapshotReader.Packs.NEWEST);
      reader.fetcher().fetch(next, clone, List.of(third));
      assertEquals(1, proxy.roundTrips(), "fetch of a small push: " + proxy.byMethod());
      assertTrue(clone.has(third));
    }
  }

  @Test
  void aCommitThatLosesTheRaceCostsThreeMoreRoundTrips(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("rc");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path work = me.newRepo(tmp.resolve("work"), "a.txt", "a\n");
    Git local = Git.at(work.resolve(".git"));
    Fixture direct = new Fixture(owner, pds.pdsUrl(), tmp.resolve("direct-cache"));
    RepoAddress repoDirect = direct.repo("race");
    assertTrue(direct.push(repoDirect, local, "refs/heads/main", local.revParse("HEAD")).allOk());
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl(), LATENCY)) {
      Fixture f = new Fixture(owner, proxy.url(), tmp.resolve("cache"));
      RepoAddress repo = f.repo("race");
      CommitBuilder.Author author = new CommitBuilder.Author("Agent", "agent@example.test");
      // Warm the key cache and the mirror.
      f.commits().commit(request(repo, "warm.txt", author));
      proxy.reset();
      f.commits().commit(request(repo, "calm.txt", author));
      int calm = proxy.roundTrips();
      assertEquals(2, calm, "an uncontested commit: " + proxy.byMethod());

      AtomicBoolean raced = new AtomicBoolean();
      CommitBuilder racing =
          f.commits()
              .listener(
                  (attempt, commit) -> {
                    if (raced.compareAndSet(false, true)) {
                      // Another writer moves main between this commit's snapshot and its push.
                      String other;
                      try {
                        other = me.commit(work, "other.txt", "other\n");
                      } catch (InterruptedException e) {
                        throw new java.io.IOException(e);
                      }
                      assertTrue(
                          direct
                              .pusher()
                              .push(
                                  repoDirect,
                                  local,
                                  List.of(new RefUpdate("refs/heads/main", other, true)))
                              .allOk());
                    }
                  });
      proxy.reset();
      CommitBuilder.Result r = racing.commit(request(repo, "raced.txt", author));
      assertEquals(2, r.attempts());
      // At most three more: the pack count riding beside a push's write may or may not overlap
      // the refusal's re-read, so a lost race costs two or three.
      int lost = proxy.roundTrips();
      assertTrue(
          lost >= calm + 2 && lost <= calm + 3,
          "a lost race: " + lost + " round trips, " + proxy.byMethod());
      Snapshot after = f.reader().read(repo, SnapshotReader.Packs.NONE);
      assertEquals(r.commit().orElseThrow(), after.liveRefs().get("refs/heads/main").target());
    }
  }

  @Test
  void fiveHundredNinetyRefsAreReadInTwoRoundTripsEachRefOnce(PdsInstance pds, @TempDir Path tmp)
      throws Exception {
    Account owner = pds.createAccount("mr");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Git local = Git.at(me.newRepo(tmp.resolve("work"), "a.txt", "a\n").resolve(".git"));
    String head = local.revParse("HEAD");
    Fixture direct = new Fixture(owner, pds.pdsUrl(), tmp.resolve("direct-cache"));
    List<RefUpdate> refs = new java.util.ArrayList<>();
    for (int i = 0; i < 590; i++) {
      refs.add(new RefUpdate(String.format("refs/heads/b%03d", i), head, false));
    }
    assertTrue(direct.pusher().push(direct.repo("many"), local, refs).allOk());
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl(), LATENCY)) {
      Fixture f = new Fixture(owner, proxy.url(), tmp.resolve("cache"));
      RepoAddress repo = f.repo("many");
      f.reader().read(repo, SnapshotReader.Packs.NONE);
      proxy.reset();
      Snapshot s = f.reader().read(repo, SnapshotReader.Packs.NONE);
      assertEquals(590, s.refs().size());
      assertEquals(590, s.liveRefs().size());
      // The repo record and the first page, then the rest from both ends of three gaps (a gap
      // holding over 200 of the refs, about one read in a hundred, takes one more round).
      assertTrue(proxy.roundTrips() <= 3, "round trips: " + proxy.roundTrips());
      assertTrue(proxy.requests() <= 9, "requests: " + proxy.byMethod());
    }
  }

  private static CommitBuilder.Request request(
      RepoAddress repo, String path, CommitBuilder.Author author) {
    return new CommitBuilder.Request(
        repo,
        "main",
        List.of(new Change.Put(path, (path + "\n").getBytes(StandardCharsets.UTF_8), false)),
        "add " + path,
        null,
        author,
        5);
  }
}
