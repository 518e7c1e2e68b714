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
    // The blocking send, on the caller's thread, with a timer that interrupts it at the deadline
    // (the interrupt cancels the exchange). Not sendAsync: the JDK's client hands each reply of an
    // asynchronous send to CompletableFuture's default executor, which where the common pool has
    // a single worker (two cores or fewer) is a new thread per reply.
    Deadline d = new Deadline(Thread.currentThread());
    java.util.concurrent.ScheduledFuture<?> timer =
        Deadline.TIMERS.schedule(
            d::fire, deadline.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    HttpResponse<T> response;
    try {
      response = http.send(request, handler);
    } catch (InterruptedException e) {
      if (d.end()) {
        throw new TooSlow(deadline);
      }
      throw e;
    } catch (IOException e) {
      if (d.end()) {
        throw new TooSlow(deadline);
      }
      // The JDK's send wraps what failed the exchange in an IOException of the same message.
      if (e.getClass() == IOException.class && e.getCause() instanceof IOException cause) {
        throw cause;
      }
      throw e;
    } finally {
      timer.cancel(false);
    }
    d.end();
    return response;
  }

  /** One send's deadline: interrupts the sending thread once, unless the send ended first. */
  private static final class Deadline {
    static final java.util.concurrent.ScheduledThreadPoolExecutor TIMERS = timers();

    private final Thread sender;
    private boolean fired;
    private boolean ended;

    Deadline(Thread sender) {
      this.sender = sender;
    }

    private static java.util.concurrent.ScheduledThreadPoolExecutor timers() {
      java.util.concurrent.ScheduledThreadPoolExecutor t =
          new java.util.concurrent.ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread d = new Thread(r, "knotless-reply-deadlines");
                d.setDaemon(true);
                return d;
              });
      t.setRemoveOnCancelPolicy(true);
      return t;
    }

    synchronized void fire() {
      if (!ended) {
        fired = true;
        sender.interrupt();
      }
    }

    /** Ends the wait; true when the deadline fired, its interrupt then cleared. */
    synchronized boolean end() {
      ended = true;
      if (fired) {
        Thread.interrupted();
      }
      return fired;
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
