package dev.knotless.storage.pack;

import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.XrpcException;
import dev.knotless.storage.RangeScanner;
import dev.knotless.storage.StorageCache;
import dev.knotless.storage.Threads;
import dev.knotless.storage.Trace;
import dev.knotless.storage.records.PackRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
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

  /**
   * The largest pack a reader downloads, 1 GiB: a pack is held whole in memory, and a record may
   * claim any size.
   */
  public static final long MAX_PACK_BYTES = 1L << 30;

  /**
   * The longest a part waits for a rate limit to reset before it is uploaded again. A limit that
   * resets later (the reference PDS's uploadBlob limit is 1000 a day) fails the upload, with the
   * reset time in the {@link XrpcException}.
   */
  public static final Duration MAX_RATE_LIMIT_WAIT = Duration.ofSeconds(30);

  /** How many times one part is sent again after a rate limit that resets soon. */
  static final int RATE_LIMIT_RETRIES = 3;

  private static final Logger LOG = LoggerFactory.getLogger(PackStore.class);
  private final RecordStore client;
  private final StorageCache cache;
  private final Clock clock;
  private final PartUploads uploads;

  public PackStore(RecordStore client, StorageCache cache, Clock clock) {
    this.client = client;
    this.cache = cache;
    this.clock = clock;
    this.uploads = new PartUploads(client, clock);
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
    return overBlobs(
        rkey, pack, objects, PackPlacement.firstPartSize(blobLimit()), tips, bases, supersedes, at);
  }

  /** Uploads the pack's parts, halving their size while the PDS refuses them as too large. */
  private PackRecord overBlobs(
      String rkey,
      byte[] pack,
      long objects,
      int firstPartSize,
      List<String> tips,
      List<String> bases,
      List<String> supersedes,
      String at)
      throws IOException {
    int partSize = firstPartSize;
    while (true) {
      try {
        List<BlobRef> parts = uploads.upload(pack, partSize);
        return new PackRecord(rkey, tips, bases, objects, pack.length, null, parts, supersedes, at);
      } catch (XrpcException e) {
        int next = smallerPart(partSize, e);
        LOG.debug("a {}-byte part was too large; trying {} bytes", partSize, next);
        partSize = next;
      }
    }
  }

  /**
   * As {@link #place(String, byte[], List, List, List)}, for a pack still being written to {@code
   * in} (by {@code git pack-objects}): a pack too big to ride inline has each part uploaded as it
   * is written (chunked, four at a time), so when the pack ends only its last bytes are left to
   * send. Returns null for a pack of no objects, which is stored nowhere.
   */
  public PackRecord place(
      String rkey,
      java.io.InputStream in,
      List<String> tips,
      List<String> bases,
      List<String> supersedes)
      throws IOException {
    byte[] head = in.readNBytes(PackPlacement.INLINE_MAX + 1);
    if (head.length <= PackPlacement.INLINE_MAX) {
      return PackPlacement.objectCount(head) == 0
          ? null
          : place(rkey, head, tips, bases, supersedes);
    }
    long objects = PackPlacement.objectCount(head);
    if (objects < 0) {
      throw new IOException("git pack-objects produced something that is not a pack");
    }
    String at = clock.instant().toString();
    int partSize = PackPlacement.firstPartSize(blobLimit());
    if (partSize < head.length) {
      // A PDS with blobs smaller than an inline pack: the whole pack first, as before.
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      all.writeBytes(head);
      in.transferTo(all);
      return overBlobs(rkey, all.toByteArray(), objects, partSize, tips, bases, supersedes, at);
    }
    Semaphore slots = new Semaphore(UPLOADS_AT_ONCE);
    List<GrowingPart> parts = new ArrayList<>();
    List<CompletableFuture<BlobRef>> sent = new ArrayList<>();
    GrowingPart part = new GrowingPart(Arrays.copyOf(head, partSize), head.length);
    try {
      while (true) {
        // Each part goes out as it is written, so the pack's end leaves only its last bytes to
        // send.
        parts.add(part);
        sent.add(uploads.streamed(part, slots));
        int filled = fill(in, part, partSize);
        if (filled < partSize) {
          break;
        }
        byte[] next = new byte[partSize];
        int n = 0;
        while (n == 0) {
          n = in.read(next, 0, partSize);
        }
        if (n < 0) {
          break;
        }
        part = new GrowingPart(next, n);
      }
    } catch (IOException | RuntimeException e) {
      part.fail(e instanceof IOException io ? io : new IOException(e));
      throw e;
    }
    long size = 0;
    for (GrowingPart p : parts) {
      size += p.filled();
    }
    try {
      List<BlobRef> refs = PartUploads.joinAll(sent);
      return new PackRecord(rkey, tips, bases, objects, size, null, refs, supersedes, at);
    } catch (XrpcException e) {
      int next = smallerPart(partSize, e);
      ByteArrayOutputStream all = new ByteArrayOutputStream((int) size);
      for (GrowingPart p : parts) {
        all.writeBytes(p.awaitBytes());
      }
      return overBlobs(rkey, all.toByteArray(), objects, next, tips, bases, supersedes, at);
    }
  }

  /** Reads {@code in} into {@code part} until it is full or {@code in} ends, then finishes it. */
  private static int fill(java.io.InputStream in, GrowingPart part, int partSize)
      throws IOException {
    int filled = part.filled();
    while (filled < partSize) {
      int n = in.read(part.array(), filled, partSize - filled);
      if (n < 0) {
        break;
      }
      filled += n;
      part.filledTo(filled);
    }
    part.finish();
    return filled;
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

  /**
   * The pack's bytes: inline data, or its parts downloaded eight at a time and joined in order.
   * Fails if the length differs from the record's {@code size}.
   */
  public byte[] read(String did, PackRecord pack) throws IOException {
    checkSize(pack);
    byte[] bytes;
    if (pack.inline()) {
      bytes = pack.data();
    } else {
      List<CompletableFuture<byte[]>> futures = downloads(did, pack);
      ByteArrayOutputStream all = new ByteArrayOutputStream((int) pack.size());
      for (CompletableFuture<byte[]> f : futures) {
        all.writeBytes(RangeScanner.join(f));
      }
      bytes = all.toByteArray();
    }
    if (bytes.length != pack.size()) {
      throw sizeMismatch(pack, bytes.length);
    }
    return bytes;
  }

  /**
   * Writes the pack's bytes to {@code out} as they arrive: inline data at once, or its parts,
   * downloaded eight at a time: the first written as its bytes come, the others each as soon as it
   * and every part before it are in, so a reader such as {@code git index-pack} works on the start
   * of the pack while the rest downloads. Fails before a byte is written if the record's sizes do
   * not add up, and part way when a part is not the size its reference says.
   */
  public void readInto(String did, PackRecord pack, java.io.OutputStream out) throws IOException {
    checkSize(pack);
    if (pack.inline()) {
      if (pack.data().length != pack.size()) {
        throw sizeMismatch(pack, pack.data().length);
      }
      out.write(pack.data());
      return;
    }
    if (pack.parts().isEmpty()) {
      if (pack.size() != 0) {
        throw sizeMismatch(pack, 0);
      }
      return;
    }
    // The first part streams into out as it arrives, so what reads out (index-pack) starts on it
    // at once; the others download beside it, and are written after it, in order.
    Semaphore slots = new Semaphore(DOWNLOADS_AT_ONCE);
    slots.acquireUninterruptibly();
    List<CompletableFuture<byte[]>> futures = downloads(did, pack, 1, slots);
    long written = 0;
    try {
      BlobRef first = pack.parts().get(0);
      try {
        long t = Trace.start();
        client.getBlobInto(did, first.cid(), first.size(), out);
        Trace.step("getBlob into index-pack (" + first.size() + " bytes)", t);
      } finally {
        slots.release();
      }
      written += first.size();
      for (int i = 1; i < pack.parts().size(); i++) {
        byte[] part = RangeScanner.join(futures.get(i - 1));
        if (part.length != pack.parts().get(i).size()) {
          throw new IOException(
              "part "
                  + i
                  + " of pack "
                  + pack.rkey()
                  + " is "
                  + part.length
                  + " bytes, but its reference says "
                  + pack.parts().get(i).size());
        }
        out.write(part);
        written += part.length;
      }
    } finally {
      if (written != pack.size()) {
        futures.forEach(f -> f.cancel(false));
      }
    }
  }

  private static IOException sizeMismatch(PackRecord pack, long actual) {
    return new IOException(
        "pack " + pack.rkey() + " is " + actual + " bytes, but its record says " + pack.size());
  }

  /**
   * The part size to try after the PDS refused {@code partSize}: half of it, rethrowing {@code e}
   * when it was not a refusal for size, and failing when parts can be halved no further.
   */
  private static int smallerPart(int partSize, XrpcException e) throws IOException {
    if (!e.tooLarge()) {
      throw e;
    }
    OptionalInt next = PackPlacement.halve(partSize);
    if (next.isEmpty()) {
      throw new IOException(
          "the PDS refuses even " + partSize + "-byte parts as too large: " + e.getMessage(), e);
    }
    return next.getAsInt();
  }

  /** The parts' downloads, started eight at a time, in order. */
  private List<CompletableFuture<byte[]>> downloads(String did, PackRecord pack) {
    return downloads(did, pack, 0, new Semaphore(DOWNLOADS_AT_ONCE));
  }

  /** The downloads of the parts from {@code from} on, each holding one of {@code slots}. */
  private List<CompletableFuture<byte[]>> downloads(
      String did, PackRecord pack, int from, Semaphore slots) {
    List<CompletableFuture<byte[]>> futures = new ArrayList<>();
    for (BlobRef part : pack.parts().subList(from, pack.parts().size())) {
      futures.add(
          Threads.async(
              () -> {
                slots.acquireUninterruptibly();
                try {
                  // No more than the part's reference says: a PDS sending more is cut there.
                  long t = Trace.start();
                  byte[] b = client.getBlob(did, part.cid(), part.size());
                  Trace.step("getBlob (" + b.length + " bytes)", t);
                  return b;
                } finally {
                  slots.release();
                }
              }));
    }
    return futures;
  }

  /**
   * Refuses, before a byte is downloaded, a pack whose record says it is over {@link
   * #MAX_PACK_BYTES}, or whose parts' sizes do not add up to its size: a hostile PDS cannot make a
   * reader download gigabytes, or hold more than it said, to find out.
   */
  static void checkSize(PackRecord pack) throws IOException {
    if (pack.size() < 0 || pack.size() > MAX_PACK_BYTES) {
      throw new IOException(
          "pack "
              + pack.rkey()
              + " says it is "
              + pack.size()
              + " bytes, over the "
              + MAX_PACK_BYTES
              + " bytes a pack may be; not downloaded");
    }
    if (pack.inline()) {
      return;
    }
    long sum = 0;
    for (BlobRef part : pack.parts()) {
      if (part.size() < 0 || part.size() > MAX_PACK_BYTES) {
        throw new IOException(
            "pack " + pack.rkey() + " has a part of " + part.size() + " bytes; not downloaded");
      }
      sum += part.size();
    }
    if (sum != pack.size()) {
      throw new IOException(
          "pack "
              + pack.rkey()
              + "'s parts add up to "
              + sum
              + " bytes, but its record says "
              + pack.size()
              + "; not downloaded");
    }
  }
}
