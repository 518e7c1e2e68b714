package dev.knotless.atproto;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Response bodies read whole but never past a limit: a server that answers with an endless body (a
 * hostile PDS, a DID document host) gets its stream cancelled at the limit and the call fails
 * naming it, rather than filling the heap. Stateless; each handler is thread-safe.
 */
public final class BoundedBodies {

  /** The most an XRPC reply may hold: a page of records or a blob, packs included. */
  public static final long XRPC_REPLY_BYTES = 64L << 20;

  private BoundedBodies() {}

  /** Why a body was cut off. */
  public static final class TooLarge extends IOException {
    TooLarge(long limit) {
      super("the reply was over " + limit + " bytes, the most this client reads");
    }
  }

  /**
   * A handler reading the whole body as bytes, failing with {@link TooLarge} past {@code limit}.
   */
  public static HttpResponse.BodyHandler<byte[]> ofByteArray(long limit) {
    return info -> new Subscriber(HttpResponse.BodySubscribers.ofByteArray(), limit);
  }

  private static final class Subscriber implements HttpResponse.BodySubscriber<byte[]> {
    private final HttpResponse.BodySubscriber<byte[]> inner;
    private final long limit;
    private Flow.Subscription subscription;
    private long seen;
    private boolean cut;

    Subscriber(HttpResponse.BodySubscriber<byte[]> inner, long limit) {
      this.inner = inner;
      this.limit = limit;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
      return inner.getBody();
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      this.subscription = s;
      inner.onSubscribe(s);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      if (cut) {
        return;
      }
      for (ByteBuffer b : items) {
        seen += b.remaining();
      }
      if (seen > limit) {
        cut = true;
        subscription.cancel();
        inner.onError(new TooLarge(limit));
        return;
      }
      inner.onNext(items);
    }

    @Override
    public void onError(Throwable t) {
      if (!cut) {
        inner.onError(t);
      }
    }

    @Override
    public void onComplete() {
      if (!cut) {
        inner.onComplete();
      }
    }
  }
}
