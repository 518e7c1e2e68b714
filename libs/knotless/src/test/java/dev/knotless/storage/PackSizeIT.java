package dev.knotless.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.ServiceAddresses;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcObserver;
import dev.knotless.storage.pack.PackStore;
import dev.knotless.storage.records.PackRecord;
import dev.knotless.testing.Account;
import dev.knotless.testing.PdsInstance;
import dev.knotless.testing.WithPds;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile owner rewrites a pack record to claim 5 GB, or parts that do not add up to its size: a
 * clone refuses it naming the pack and the sizes, and no blob is downloaded to find out.
 */
@WithPds
class PackSizeIT {

  @Test
  void aPackClaimingMoreThanTheLimitOrPartsThatDoNotAddUpIsRefusedBeforeItsDownload(
      PdsInstance pds, @TempDir Path tmp) throws Exception {
    Account owner = pds.createAccount("sizes");
    GitUser me = new GitUser(pds, owner, tmp.resolve("home"));
    Path a = me.newRepo(tmp.resolve("a"), "a.txt", "a\n");
    String url = "knotless://" + owner.handle() + "/sized";
    me.ok(a, "push", "-q", url, "main");
    Fixture f = new Fixture(owner, pds.pdsUrl(), tmp.resolve("cache"));
    PackRecord pack =
        f.reader().read(f.repo("sized"), SnapshotReader.Packs.PAGE).newestPacks().get(0);
    BlobRef part = f.client.uploadBlob(new byte[100], PackStore.MIME);

    rewrite(f, pack, part, 5_000_000_000L);
    String huge = me.fails(tmp, "clone", url, "c1");
    assertTrue(
        huge.contains(
            "pack "
                + pack.rkey()
                + " says it is 5000000000 bytes, over the 1073741824 bytes a pack may be;"
                + " not downloaded"),
        huge);
    assertEquals(0, blobsDownloadedReading(pds, f, owner));

    rewrite(f, pack, part, 5000);
    String uneven = me.fails(tmp, "clone", url, "c2");
    assertTrue(
        uneven.contains(
            "pack "
                + pack.rkey()
                + "'s parts add up to 100 bytes, but its record says 5000; not downloaded"),
        uneven);
    assertEquals(0, blobsDownloadedReading(pds, f, owner));

    // A part that is not the size its reference says is found as it streams into index-pack: the
    // clone fails naming the blob and both sizes, or the limit it went past.
    BlobRef saysMore = new BlobRef(part.cid(), part.mimeType(), 5000);
    rewrite(f, pack, saysMore, 5000);
    String shorter = me.fails(tmp, "clone", url, "c3");
    assertTrue(
        shorter.contains("the blob " + part.cid() + " is 100 bytes, but its reference says 5000"),
        shorter);
    BlobRef saysLess = new BlobRef(part.cid(), part.mimeType(), 50);
    rewrite(f, pack, saysLess, 50);
    String longer = me.fails(tmp, "clone", url, "c4");
    assertTrue(longer.contains("over 50 bytes"), longer);
  }

  private static void rewrite(Fixture f, PackRecord pack, BlobRef part, long size)
      throws IOException {
    PackRecord claimed =
        new PackRecord(
            pack.rkey(),
            pack.tips(),
            pack.bases(),
            pack.objects(),
            size,
            null,
            List.of(part),
            pack.supersedes(),
            pack.createdAt());
    f.client.applyWrites(
        f.owner.did(), List.of(Write.update(Lexicons.PACK, pack.rkey(), claimed.toJson())));
  }

  /** Reads the pack as a fetch does, counting the getBlob calls it makes. */
  private static int blobsDownloadedReading(PdsInstance pds, Fixture f, Account owner)
      throws IOException {
    AtomicInteger blobs = new AtomicInteger();
    XrpcObserver counting =
        (method, status, nanos) -> {
          if (method.equals("com.atproto.sync.getBlob")) {
            blobs.incrementAndGet();
          }
        };
    XrpcClient client =
        XrpcClient.create(
            pds.pdsUrl(),
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(),
            counting,
            ServiceAddresses.allowingLoopback());
    PackRecord now =
        new SnapshotReader(client, f.cache, f.clock)
            .read(f.repo("sized"), SnapshotReader.Packs.PAGE)
            .newestPacks()
            .get(0);
    IOException e =
        assertThrows(
            IOException.class,
            () -> new PackStore(client, f.cache, f.clock).read(owner.did(), now));
    assertTrue(e.getMessage().contains("not downloaded"), e.getMessage());
    return blobs.get();
  }
}
