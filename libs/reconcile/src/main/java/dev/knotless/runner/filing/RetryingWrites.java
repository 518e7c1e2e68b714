package dev.knotless.runner.filing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.BlobRef;
import dev.knotless.atproto.Swap;
import dev.knotless.atproto.Write;
import dev.knotless.atproto.WriteResult;
import dev.knotless.atproto.XrpcClient;
import dev.knotless.atproto.XrpcException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner's writes to its own account, each retried as {@link WriteRetry} says. Thread-safe: it
 * holds no state of its own between calls.
 */
public final class RetryingWrites {

  private static final Logger LOG = LoggerFactory.getLogger(RetryingWrites.class);

  /** Sleeps; a seam for tests. */
  @FunctionalInterface
  public interface Sleeper {
    /** Waits {@code d}; may be interrupted. */
    void sleep(Duration d) throws InterruptedException;
  }

  private final XrpcClient client;
  private final Clock clock;
  private final Sleeper sleeper;

  /** Writes as the account {@code client} is logged in as. */
  public RetryingWrites(XrpcClient client) {
    this(client, Clock.systemUTC(), d -> Thread.sleep(d.toMillis()));
  }

  public RetryingWrites(XrpcClient client, Clock clock, Sleeper sleeper) {
    this.client = client;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  /** The account written to. */
  public String did() {
    return client.did();
  }

  /** The client, for reads. */
  public XrpcClient client() {
    return client;
  }

  /** {@code putRecord} without a guard, so a run replaces its own record. */
  public WriteResult put(String collection, String rkey, ObjectNode value) throws XrpcException {
    return put(collection, rkey, value, Swap.none(), null);
  }

  /**
   * {@code putRecord} with {@code swap} as its guard (a refused guard is not tried again), running
   * {@code sent}, if not null, once the first try's request has gone to the connection (see {@link
   * XrpcClient#putRecord(String, String, String, ObjectNode, Swap, Runnable)}).
   */
  public WriteResult put(String collection, String rkey, ObjectNode value, Swap swap, Runnable sent)
      throws XrpcException {
    return retry(
        "putRecord " + collection + "/" + rkey,
        () -> client.putRecord(client.did(), collection, rkey, value, swap, sent));
  }

  /** {@code uploadBlob}. */
  public BlobRef upload(byte[] data, String mimeType) throws XrpcException {
    return retry("uploadBlob", () -> client.uploadBlob(data, mimeType));
  }

  /** {@code applyWrites} of at most 200 writes. */
  public List<WriteResult> apply(List<Write> writes) throws XrpcException {
    return retry("applyWrites", () -> client.applyWrites(client.did(), writes));
  }

  /** One try of a write. */
  public interface Attempt<T> {
    T call() throws XrpcException;
  }

  /**
   * Tries {@code attempt} as this account's writes are tried ({@link WriteRetry}): for writes that
   * go elsewhere than its PDS, such as a private repository's checks into a space.
   */
  public <T> T retrying(String what, Attempt<T> attempt) throws XrpcException {
    return retry(what, attempt);
  }

  private <T> T retry(String what, Attempt<T> attempt) throws XrpcException {
    int retries = 0;
    Duration waited = Duration.ZERO;
    while (true) {
      try {
        return attempt.call();
      } catch (XrpcException e) {
        Optional<Duration> pause = WriteRetry.next(e, retries, waited, clock.instant());
        if (pause.isEmpty()) {
          throw e;
        }
        if (e.status() == 429 && e.rateLimitReset().isPresent()) {
          waited = waited.plus(pause.get());
        } else {
          retries++;
        }
        LOG.warn(
            "{} failed ({}); trying again in {} ms", what, e.getMessage(), pause.get().toMillis());
        try {
          sleeper.sleep(pause.get());
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}
