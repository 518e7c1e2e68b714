package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.storage.git.Git;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.testing.Account;
import dev.knotless.testing.CountingProxy;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A PDS taking blobs of at most 100,000 bytes. */
@WithPds(blobUploadLimit = LargePackIT.LIMIT)
class LargePackIT {
  static final long LIMIT = 100_000;

  @Test
  void aBigPushSplitsIntoPartsHalvingPastAStaleLimitAndFetchesBackIntact(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("big");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path work = tmp.resolve("work");
    me.newRepo(work, "small.txt", "small\n");
    byte[] noise = new byte[450_000];
    new Random(42).nextBytes(noise);
    Files.write(work.resolve("noise.bin"), noise);
    me.ok(work, "add", "noise.bin");
    me.ok(work, "commit", "-q", "-m", "noise");
    Git local = Git.at(work.resolve(".git"));
    try (CountingProxy proxy = CountingProxy.start(pds.pdsUrl())) {
      Fixture f = new Fixture(owner, proxy.url(), tmp.resolve("cache"));
      // A limit remembered from before the PDS lowered it: parts of 400,000 are refused.
      f.cache.putBlobLimit(proxy.url(), 400_000);
      RepoAddress repo = f.repo("big");
      assertTrue(f.push(repo, local, "refs/heads/main", local.revParse("HEAD")).allOk());
      Snapshot s = f.reader().read(repo, SnapshotReader.Packs.NEWEST);
      PackRecord pack = s.newestPacks().get(0);
      assertFalse(pack.inline());
      assertEquals((pack.size() + LIMIT - 1) / LIMIT, pack.parts().size());
      assertTrue(pack.parts().stream().allMatch(p -> p.size() <= LIMIT));
      int uploads = proxy.requests("com.atproto.repo.uploadBlob");
      assertTrue(uploads > pack.parts().size(), "refused parts were retried: " + uploads);
    }
    me.ok(tmp, "clone", "-q", "knotless://" + owner.handle() + "/big", "copy");
    assertArrayEquals(noise, Files.readAllBytes(tmp.resolve("copy/noise.bin")));
  }
}
