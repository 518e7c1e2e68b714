package dev.knotless.storage.pack;

import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.RecordStore;
import dev.knotless.atproto.XrpcException;
import dev.knotless.storage.RangeScanner;
import dev.knotless.storage.Threads;
import dev.knotless.storage.Trace;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Uploads a pack's parts as blobs: a whole pack cut into parts, or a part streamed while it is
 * still being written ({@link GrowingPart}), each waiting for one of the caller's slots. A rate
 * limit that resets soon is waited out. Thread-safe.
 */
final class PartUploads {
  private static final Logger LOG = LoggerFactory.getLogger(PartUploads.class);
  private final RecordStore client;
  private final Clock clock;

  PartUploads(RecordStore client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** Cuts {@code pack} into parts of {@code partSize} and uploads them, four at a time. */
  List<BlobRef> upload(byte[] pack, int partSize) throws IOException {
    Semaphore slots = new Semaphore(PackStore.UPLOADS_AT_ONCE);
    List<CompletableFuture<BlobRef>> futures = new ArrayList<>();
    for (long[] cut : PackPlacement.cut(pack.length, partSize)) {
      byte[] part = Arrays.copyOfRange(pack, (int) cut[0], (int) cut[1]);
      futures.add(slotted(slots, () -> uploadOne(part)));
    }
    return joinAll(futures);
  }

  /**
   * Uploads {@code part} as it is written, once a slot is free. Should the streamed request fail (a
   * token to refresh, a rate limit, a reply the stream could not be sent to), the part's bytes are
   * sent again the usual way once it is finished; if its writer failed, so does the upload.
   */
  CompletableFuture<BlobRef> streamed(GrowingPart part, Semaphore slots) {
    return slotted(
        slots,
        () -> {
          try {
            BlobRef ref = client.uploadBlobStreamed(part.stream(), PackStore.MIME);
            long size = part.awaitBytes().length;
            if (ref.size() == size) {
              return ref;
            }
            LOG.debug("a streamed part of {} bytes came back as {} bytes", size, ref.size());
          } catch (XrpcException e) {
            if (e.kind() == XrpcException.Kind.RATE_LIMITED || e.tooLarge()) {
              // Said of the part, not of how it was sent: waited out, or the caller's to answer.
              return sendAfter(part.awaitBytes(), e);
            }
            LOG.debug("a streamed part failed ({}); sending its bytes", e.toString());
          } catch (RuntimeException e) {
            LOG.debug("a streamed part failed ({}); sending its bytes", e.toString());
          }
          return uploadOne(part.awaitBytes());
        });
  }

  private CompletableFuture<BlobRef> slotted(Semaphore slots, Threads.IoCall<BlobRef> call) {
    return Threads.async(
        () -> {
          slots.acquireUninterruptibly();
          try {
            long t = Trace.start();
            BlobRef ref = call.get();
            Trace.step("uploadBlob (" + ref.size() + " bytes)", t);
            return ref;
          } finally {
            slots.release();
          }
        });
  }

  /** Waits for every upload, then throws the first failure, if any. */
  static List<BlobRef> joinAll(List<CompletableFuture<BlobRef>> futures) throws IOException {
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
   * Uploads one part. A 429 whose {@code RateLimit-Reset} is at most {@link
   * PackStore#MAX_RATE_LIMIT_WAIT} away waits until that moment and sends the part again, never
   * sooner; a later or unknown reset fails at once.
   */
  BlobRef uploadOne(byte[] part) throws IOException {
    return sendAfter(part, null);
  }

  /**
   * As {@link #uploadOne}, after {@code failed} (its streamed send, which counts as one) when it is
   * not null: a rate limit is waited out or fails at once as if the bytes had been sent.
   */
  private BlobRef sendAfter(byte[] part, XrpcException failed) throws IOException {
    int sent = failed == null ? 0 : 1;
    XrpcException last = failed;
    while (true) {
      if (last != null) {
        waitOutOrThrow(last, sent);
      }
      try {
        return client.uploadBlob(part, PackStore.MIME);
      } catch (XrpcException e) {
        last = e;
        sent++;
      }
    }
  }

  /** Waits for a rate limit that resets soon, the part sent too few times to give up; or throws. */
  private void waitOutOrThrow(XrpcException e, int sent) throws IOException {
    if (e.kind() != XrpcException.Kind.RATE_LIMITED
        || e.rateLimitReset().isEmpty()
        || sent > PackStore.RATE_LIMIT_RETRIES) {
      throw e;
    }
    Duration wait = Duration.between(clock.instant(), e.rateLimitReset().get());
    if (wait.compareTo(PackStore.MAX_RATE_LIMIT_WAIT) > 0) {
      throw e;
    }
    LOG.debug("uploadBlob rate limited; sending the part again at {}", e.rateLimitReset().get());
    sleep(wait);
  }

  private static void sleep(Duration d) throws IOException {
    if (d.isNegative() || d.isZero()) {
      return;
    }
    try {
      Thread.sleep(d.toMillis() + 1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted waiting for a rate limit to reset");
    }
  }
}
