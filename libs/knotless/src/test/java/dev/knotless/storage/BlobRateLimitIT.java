package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.storage.git.Git;
import dev.knotless.storage.push.PushResult;
import dev.knotless.storage.push.Pusher;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference PDS's own {@code uploadBlob} limit, 1000 a day, reached for real: a first push of a
 * pack too large to ride inline is refused with the time the limit resets, and writes nothing, so
 * no empty repository is left behind. A server of its own, since the limit is the server's.
 */
@WithPds(rateLimits = true, scope = WithPds.Scope.CLASS)
class BlobRateLimitIT {
  private static final String PREFIX = Pusher.RATE_LIMITED + "blob uploads resume at ";

  @Test
  void aFirstPushPastTheDaysBlobLimitSaysWhenItResetsAndLeavesNoRepository(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("blobs");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path work = me.newRepo(tmp.resolve("work"), "a.txt", "a\n");
    Git local = Git.at(work.resolve(".git"));
    String big = LostRepliesIT.commitRandom(me, work, 300 * 1024);

    XrpcClient filler = XrpcClient.create(pds.pdsUrl());
    filler.login(owner.handle(), owner.password());
    Instant before = Instant.now();
    int accepted = exhaustUploads(filler);
    assertTrue(accepted <= 1000, "uploads accepted: " + accepted);

    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      Fixture f = new Fixture(owner, proxy.url(), tmp.resolve("cache"));
      RepoAddress repo = f.repo("blobs");
      proxy.reset();
      PushResult r = f.push(repo, local, "refs/heads/main", big);
      String error = r.outcome("refs/heads/main").orElseThrow().error();
      assertTrue(error != null && error.startsWith(PREFIX), error);
      Instant resume = Instant.parse(error.substring(PREFIX.length()));
      assertTrue(
          resume.isAfter(before.plus(Duration.ofHours(23)))
              && resume.isBefore(before.plus(Duration.ofHours(25))),
          "the day's limit resets at " + resume);
      assertFalse(r.landed());
      assertEquals(0, proxy.requests("com.atproto.repo.applyWrites"), proxy.byMethod().toString());
      assertEquals(0, proxy.requests("com.atproto.repo.putRecord"), proxy.byMethod().toString());
      assertFalse(
          LostRepliesIT.repoRecordExists(pds, owner, "blobs"), "an empty repository was left");
    }
  }

  /** Uploads tiny blobs until the PDS says 429; returns how many it took. */
  private static int exhaustUploads(XrpcClient client) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      int accepted = 0;
      while (true) {
        List<CompletableFuture<Boolean>> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          byte[] one = {(byte) i};
          batch.add(
              CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      client.uploadBlob(one, "application/octet-stream");
                      return true;
                    } catch (XrpcException e) {
                      if (e.kind() == XrpcException.Kind.RATE_LIMITED) {
                        return false;
                      }
                      throw new IllegalStateException(e);
                    }
                  },
                  pool));
        }
        boolean limited = false;
        for (CompletableFuture<Boolean> b : batch) {
          if (b.join()) {
            accepted++;
          } else {
            limited = true;
          }
        }
        if (limited) {
          return accepted;
        }
        if (accepted > 1100) {
          throw new AssertionError("the PDS never limited uploadBlob after " + accepted);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
