package dev.knotless.storage.pack;

import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import dev.knotless.storage.RangeScanner;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.Threads;
import dev.knotless.storage.records.PackRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores packs in and reads them back from a PDS: inline or as blob parts uploaded four at a time,
 * halving the part size when the PDS refuses one as too large. Thread-safe.
 */
public final class PackStore {
  /** Parts uploaded at once. */
  public static final int UPLOADS_AT_ONCE = 4;

  /** Parts downloaded at once. */
  public static final int DOWNLOADS_AT_ONCE = 8;

  /** The MIME type parts are uploaded as. */
  public static final String MIME = "application/x-git-packed-objects";

  private static final Logger LOG = LoggerFactory.getLogger(PackStore.class);
  private final XrpcClient client;
  private final StorageCache cache;
  private final Clock clock;

  public PackStore(XrpcClient client, StorageCache cache, Clock clock) {
    this.client = client;
    this.cache = cache;
    this.clock = clock;
  }

  /** Builds the record of a pack, uploading its parts first when it is too big to ride inline. */
  public PackRecord place(
      String rkey, byte[] pack, List<String> tips, List<String> bases, List<String> supersedes)
      throws IOException {
    long objects = PackPlacement.objectCount(pack);
    if (objects < 0) {
      throw new IOException("git pack-objects produced something that is not a pack");
    }
    String at = clock.instant().toString();
    if (PackPlacement.inline(pack.length)) {
      return new PackRecord(
          rkey, tips, bases, objects, pack.length, pack, List.of(), supersedes, at);
    }
    int partSize = PackPlacement.firstPartSize(blobLimit());
    while (true) {
      try {
        List<BlobRef> parts = upload(pack, partSize);
        return new PackRecord(rkey, tips, bases, objects, pack.length, null, parts, supersedes, at);
      } catch (XrpcException e) {
        if (!e.tooLarge()) {
          throw e;
        }
        OptionalInt next = PackPlacement.halve(partSize);
        if (next.isEmpty()) {
          throw new IOException(
              "the PDS refuses even " + partSize + "-byte parts as too large: " + e.getMessage(),
              e);
        }
        LOG.debug("a {}-byte part was too large; trying {} bytes", partSize, next.getAsInt());
        partSize = next.getAsInt();
      }
    }
  }

  private long blobLimit() throws IOException {
    var cached = cache.blobLimit(client.service());
    if (cached.isPresent()) {
      return cached.get();
    }
    long limit = client.describeServer().blobUploadLimit();
    cache.putBlobLimit(client.service(), limit);
    return limit;
  }

  private List<BlobRef> upload(byte[] pack, int partSize) throws IOException {
    List<long[]> cuts = PackPlacement.cut(pack.length, partSize);
    Semaphore slots = new Semaphore(UPLOADS_AT_ONCE);
    List<CompletableFuture<BlobRef>> futures = new ArrayList<>();
    for (long[] cut : cuts) {
      futures.add(
          CompletableFuture.supplyAsync(
              () -> {
                slots.acquireUninterruptibly();
                try {
                  byte[] part = Arrays.copyOfRange(pack, (int) cut[0], (int) cut[1]);
                  return client.uploadBlob(part, MIME);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                } finally {
                  slots.release();
                }
              },
              Threads.IO));
    }
    List<BlobRef> out = new ArrayList<>();
    IOException first = null;
    for (CompletableFuture<BlobRef> f : futures) {
      try {
        out.add(RangeScanner.join(f));
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
    return out;
  }

  /**
   * The pack's bytes: inline data, or its parts downloaded eight at a time and joined in order.
   * Fails if the length differs from the record's {@code size}.
   */
  public byte[] read(String did, PackRecord pack) throws IOException {
    byte[] bytes;
    if (pack.inline()) {
      bytes = pack.data();
    } else {
      Semaphore slots = new Semaphore(DOWNLOADS_AT_ONCE);
      List<CompletableFuture<byte[]>> futures = new ArrayList<>();
      for (BlobRef part : pack.parts()) {
        futures.add(
            CompletableFuture.supplyAsync(
                () -> {
                  slots.acquireUninterruptibly();
                  try {
                    return client.getBlob(did, part.cid());
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  } finally {
                    slots.release();
                  }
                },
                Threads.IO));
      }
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      for (CompletableFuture<byte[]> f : futures) {
        all.writeBytes(RangeScanner.join(f));
      }
      bytes = all.toByteArray();
    }
    if (bytes.length != pack.size()) {
      throw new IOException(
          "pack "
              + pack.rkey()
              + " is "
              + bytes.length
              + " bytes, but its record says "
              + pack.size());
    }
    return bytes;
  }
}
