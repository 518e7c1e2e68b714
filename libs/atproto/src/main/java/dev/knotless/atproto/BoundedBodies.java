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

  /**
   * A handler that writes a successful (200) reply's body to {@code out} as it arrives, failing
   * with {@link TooLarge} past {@code limit} bytes and with the write's own exception when {@code
   * out} refuses it; {@code written} counts what was written. The response's body is then empty.
   * Any other reply is read whole, as {@link #ofByteArray}, for the caller's error, and nothing of
   * it reaches {@code out}.
   */
  public static HttpResponse.BodyHandler<byte[]> into(
      java.io.OutputStream out, long limit, java.util.concurrent.atomic.AtomicLong written) {
    return info ->
        info.statusCode() == 200
            ? new Into(out, limit, written)
            : new Subscriber(HttpResponse.BodySubscribers.ofByteArray(), XRPC_REPLY_BYTES);
  }

  /** Writes each piece of a body to a stream, asking for the next once it is written. */
  private static final class Into implements HttpResponse.BodySubscriber<byte[]> {
    private final java.io.OutputStream out;
    private final long limit;
    private final java.util.concurrent.atomic.AtomicLong written;
    private final java.util.concurrent.CompletableFuture<byte[]> body =
        new java.util.concurrent.CompletableFuture<>();
    private Flow.Subscription subscription;

    Into(java.io.OutputStream out, long limit, java.util.concurrent.atomic.AtomicLong written) {
      this.out = out;
      this.limit = limit;
      this.written = written;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
      return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      this.subscription = s;
      s.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      if (body.isDone()) {
        return;
      }
      try {
        for (ByteBuffer b : items) {
          int n = b.remaining();
          if (written.get() + n > limit) {
            throw new TooLarge(limit);
          }
          byte[] a = new byte[n];
          b.get(a);
          out.write(a);
          written.addAndGet(n);
        }
      } catch (IOException e) {
        subscription.cancel();
        body.completeExceptionally(e);
        return;
      }
      subscription.request(1);
    }

    @Override
    public void onError(Throwable t) {
      body.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
      body.complete(new byte[0]);
    }
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
