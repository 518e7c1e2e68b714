package dev.knotless.runner.filing;

import dev.knotless.atproto.RecordCid;
import dev.knotless.atproto.XrpcException;
import dev.knotless.runner.check.CheckRecord;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;

/**
 * A push's last queued check, still being filed when the pass hands its runs to the job pool.
 *
 * <p>A run that gets its job at once would otherwise wait a whole round trip for that write's reply
 * before filing itself running. Instead the running write goes out as soon as the queued one has,
 * guarded on the queued record's CID, worked out ahead ({@link RecordCid}): the PDS lands it only
 * once the queued check is there, so no reader ever sees them out of order. Should it arrive first
 * and be refused, it is sent again once the queued write's reply is in.
 *
 * <p>Every other write about the pass's runs waits for this one: their checks are all filed before
 * any step runs, and a run cancelled meanwhile is not filed cancelled only to be overwritten by its
 * own queued check. Thread-safe.
 */
public final class FilingAhead {

  /** Nothing filed ahead: every check of the pass was filed before its runs were handed on. */
  public static final FilingAhead NONE = new FilingAhead(null, null);

  private final String rkey;
  private final String cid;
  private final CountDownLatch sent = new CountDownLatch(1);
  private final CompletableFuture<Void> landed = new CompletableFuture<>();

  private FilingAhead(String rkey, String cid) {
    this.rkey = rkey;
    this.cid = cid;
    if (rkey == null) {
      sent.countDown();
      landed.complete(null);
    }
  }

  /** The queued {@code check} about to be filed under {@code rkey} after its runs are handed on. */
  public static FilingAhead of(String rkey, CheckRecord check) {
    return new FilingAhead(rkey, RecordCid.of(check.toJson()));
  }

  /**
   * The queued write's request has gone to the connection. With a client that cannot tell (the
   * blocking one), {@link #landed()} says so with the reply, and the run files after it.
   */
  public void sent() {
    sent.countDown();
  }

  /** The queued write landed. */
  public void landed() {
    sent.countDown();
    landed.complete(null);
  }

  /** The queued write failed for good, or the pass ended before sending it. */
  public void failed(Throwable e) {
    sent.countDown();
    landed.completeExceptionally(e);
  }

  /**
   * The CID to guard a running write of {@code rkey} on, once the queued write has gone out; null
   * when that write is not this run's or has already landed (then the run simply files after it).
   */
  public String guardFor(String rkey) throws InterruptedException {
    if (this.rkey == null || !this.rkey.equals(rkey) || landed.isDone()) {
      return null;
    }
    // Sent ahead, or landed or failed: the pass always says one of them, and soon.
    sent.await();
    return landed.isDone() ? null : cid;
  }

  /**
   * Waits for the queued write.
   *
   * @throws XrpcException the write's own failure
   */
  public void await() throws XrpcException {
    try {
      landed.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw XrpcException.noStatus("com.atproto.repo.putRecord", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof XrpcException x) {
        throw x;
      }
      throw new IllegalStateException("the queued check's write failed", e.getCause());
    }
  }

  /** Waits for the queued write to land or fail, whichever: for writes that follow it anyway. */
  public void settle() {
    try {
      landed.handle((v, e) -> null).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }
}
