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

  /** Why a reply was given up: it did not end, headers and body, within its deadline. */
  public static final class TooSlow extends java.net.http.HttpTimeoutException {
    TooSlow(java.time.Duration deadline) {
      super(
          "the reply did not end within "
              + deadline.toSeconds()
              + " s (headers and body together), the most this client waits; given up");
    }
  }

  /**
   * Sends {@code request} and waits at most {@code deadline} for the whole reply, its body
   * included: a per-request timeout only covers the wait for the headers, so a server trickling a
   * byte a second would otherwise hold the caller for as long as it likes. Past the deadline the
   * exchange is cancelled and {@link TooSlow} thrown.
   */
  public static <T> HttpResponse<T> send(
      java.net.http.HttpClient http,
      java.net.http.HttpRequest request,
      HttpResponse.BodyHandler<T> handler,
      java.time.Duration deadline)
      throws IOException, InterruptedException {
    java.util.concurrent.CompletableFuture<HttpResponse<T>> f = http.sendAsync(request, handler);
    try {
      return f.get(deadline.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      f.cancel(true);
      throw new TooSlow(deadline);
    } catch (InterruptedException e) {
      f.cancel(true);
      throw e;
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      throw new IOException(String.valueOf(cause), cause);
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
