package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.RefUpdate;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithPds
class PushRaceIT {
  private static final int ROUNDS = 8;

  @Test
  void ofTwoPushesRacingOnOneRefExactlyOneLandsAndTheOtherIsToldFetchFirst(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("race");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "f.txt", "base\n");
    Fixture fa = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache-a"));
    Fixture fb = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache-b"));
    RepoAddress repo = fa.repo("raced");
    Git ga = Git.at(a.resolve(".git"));
    assertEquals(true, fa.push(repo, ga, "refs/heads/main", ga.revParse("HEAD")).allOk());
    me.ok(tmp, "clone", "-q", "knotless://" + owner.handle() + "/raced", "b");
    Path b = tmp.resolve("b");
    Git gb = Git.at(b.resolve(".git"));
    List<String> winners = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      me.ok(a, "pull", "-q", "--ff-only", "knotless://" + owner.handle() + "/raced", "main");
      me.ok(b, "pull", "-q", "--ff-only", "origin", "main");
      String ca = me.commit(a, "a" + round + ".txt", "a\n");
      String cb = me.commit(b, "b" + round + ".txt", "b\n");
      CyclicBarrier bothRead = new CyclicBarrier(2);
      CompletableFuture<PushResult> pa = race(fa, repo, ga, ca, bothRead);
      CompletableFuture<PushResult> pb = race(fb, repo, gb, cb, bothRead);
      PushResult ra = pa.join();
      PushResult rb = pb.join();
      int landed = (ra.allOk() ? 1 : 0) + (rb.allOk() ? 1 : 0);
      assertEquals(1, landed, "round " + round + ": " + ra + " / " + rb);
      PushResult loser = ra.allOk() ? rb : ra;
      assertEquals("fetch first", loser.outcomes().get(0).error());
      String tip =
          fa.reader()
              .read(repo, SnapshotReader.Packs.NONE)
              .liveRefs()
              .get("refs/heads/main")
              .target();
      assertEquals(ra.allOk() ? ca : cb, tip);
      winners.add(ra.allOk() ? "a" : "b");
      if (!ra.allOk()) {
        me.ok(a, "reset", "-q", "--hard", "HEAD~1");
      } else {
        me.ok(b, "reset", "-q", "--hard", "HEAD~1");
      }
    }
    assertEquals(ROUNDS, winners.size());
  }

  /** Reads the snapshot, waits until the other pusher has read too, then pushes. */
  private static CompletableFuture<PushResult> race(
      Fixture f, RepoAddress repo, Git local, String target, CyclicBarrier bothRead) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            Snapshot s = f.reader().read(repo, SnapshotReader.Packs.NONE);
            bothRead.await();
            return f.pusher()
                .push(s, local, List.of(new RefUpdate("refs/heads/main", target, false)));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        },
        Threads.IO);
  }
}
