package dev.knotless.atproto;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Request bodies as both HTTP clients take them: the JDK's {@link java.net.http.HttpClient}
 * subscribes to a publisher; {@link BlockingHttpClient} wants the bytes, or the stream of a
 * streamed body. Stateless.
 */
final class RequestBodies {

  private RequestBodies() {}

  /**
   * A request body of {@code bytes}, for either client: the JDK's reads it as it reads {@link
   * HttpRequest.BodyPublishers#ofByteArray}; the blocking one takes the array as it is, rather than
   * gathering it back from the publisher's 16 KiB pieces (50 to 90 ms for a 4 MB blob in a cold
   * process).
   */
  static HttpRequest.BodyPublisher of(byte[] bytes) {
    return of(bytes, null);
  }

  /**
   * As {@link #of(byte[])}, running {@code sent} (if not null) once the JDK's client has taken the
   * last of the bytes to write to its connection. The blocking client takes the array whole and
   * never runs it.
   */
  static HttpRequest.BodyPublisher of(byte[] bytes, Runnable sent) {
    return new Bytes(bytes, sent);
  }

  private static final class Bytes implements HttpRequest.BodyPublisher {
    private final byte[] bytes;
    private final HttpRequest.BodyPublisher inner;
    private final Runnable sent;

    Bytes(byte[] bytes, Runnable sent) {
      this.bytes = bytes;
      this.inner = HttpRequest.BodyPublishers.ofByteArray(bytes);
      this.sent = sent;
    }

    @Override
    public long contentLength() {
      return bytes.length;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
      if (sent == null) {
        inner.subscribe(subscriber);
        return;
      }
      inner.subscribe(
          new Flow.Subscriber<ByteBuffer>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
              subscriber.onSubscribe(s);
            }

            @Override
            public void onNext(ByteBuffer b) {
              subscriber.onNext(b);
            }

            @Override
            public void onError(Throwable t) {
              subscriber.onError(t);
            }

            @Override
            public void onComplete() {
              subscriber.onComplete();
              sent.run();
            }
          });
    }
  }

  /**
   * A request body read from {@code in} as it is written, its length unknown (sent chunked), so the
   * request goes out while its producer is still at work. It can be sent once: a second send (a
   * retry after a refresh) fails rather than sending what is left of the stream.
   */
  static HttpRequest.BodyPublisher streamed(InputStream in) {
    return new Streamed(in);
  }

  static final class Streamed implements HttpRequest.BodyPublisher {
    private final AtomicBoolean taken = new AtomicBoolean();
    private final InputStream in;
    private final HttpRequest.BodyPublisher inner;

    Streamed(InputStream in) {
      this.in = in;
      this.inner = HttpRequest.BodyPublishers.ofInputStream(this::take);
    }

    /** The stream, once. */
    InputStream take() {
      if (!taken.compareAndSet(false, true)) {
        throw new UncheckedIOException(
            new IOException("a streamed request body cannot be sent a second time"));
      }
      return in;
    }

    @Override
    public long contentLength() {
      return -1;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
      inner.subscribe(subscriber);
    }
  }

  /** The request's body, or null when it has none. */
  static byte[] bytes(HttpRequest request) throws IOException {
    Optional<HttpRequest.BodyPublisher> publisher = request.bodyPublisher();
    if (publisher.isEmpty()) {
      return null;
    }
    if (publisher.get() instanceof Bytes b) {
      return b.bytes;
    }
    if (publisher.get() instanceof Streamed) {
      throw new IllegalArgumentException("a streamed body is sent as it is read, not gathered");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CompletableFuture<Void> done = new CompletableFuture<>();
    publisher
        .get()
        .subscribe(
            new Flow.Subscriber<ByteBuffer>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(ByteBuffer b) {
                byte[] a = new byte[b.remaining()];
                b.get(a);
                out.writeBytes(a);
              }

              @Override
              public void onError(Throwable t) {
                done.completeExceptionally(t);
              }

              @Override
              public void onComplete() {
                done.complete(null);
              }
            });
    try {
      done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the request body was read", e);
    } catch (ExecutionException e) {
      throw new IOException("the request body could not be read", e.getCause());
    }
    return out.toByteArray();
  }
}
