package dev.knotless.atproto;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * An HTTP/1.1 client on the JDK's {@link HttpURLConnection}, for a process that makes a handful of
 * requests and exits: the git helper and the owner's commands.
 *
 * <p>The JDK's {@link HttpClient} costs such a process 80 to 100 ms before its first reply, all of
 * it set-up done cold (a selector and its thread, the asynchronous machinery behind every
 * exchange), even with its classes in a class-data archive; this client's first request costs
 * little more than its second. It is an {@link HttpClient}, taking the same requests and body
 * handlers, so everything built on one ({@link BoundedBodies} and the clients and resolvers on it)
 * works unchanged.
 *
 * <p>Each exchange runs on a daemon thread; cancelling its future disconnects it, so a deadline
 * ({@link BoundedBodies#send}) ends a trickling reply at once. Redirects are never followed. Where
 * the proxy selector names a proxy (the pinning tunnel, for https), the connection goes through it.
 * TLS is the JDK's default, set up by the first https connection. Thread-safe.
 */
final class BlockingHttpClient extends HttpClient {

  private static final ExecutorService THREADS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "knotless-http");
            t.setDaemon(true);
            return t;
          });

  private static final int CHUNK = 64 * 1024;

  private final ProxySelector proxies;
  private final Duration connectTimeout;
  private final SSLContext tls;

  /** A client with the JDK's default TLS, set up by its first https connection. */
  BlockingHttpClient(ProxySelector proxies, Duration connectTimeout) {
    this(proxies, connectTimeout, null);
  }

  /** A client whose https connections use {@code tls} (a test's trust), or the default if null. */
  BlockingHttpClient(ProxySelector proxies, Duration connectTimeout, SSLContext tls) {
    this.proxies = proxies;
    this.connectTimeout = connectTimeout;
    this.tls = tls;
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return Optional.empty();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return Optional.of(connectTimeout);
  }

  @Override
  public Redirect followRedirects() {
    return Redirect.NEVER;
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return Optional.of(proxies);
  }

  @Override
  public SSLContext sslContext() {
    return tls != null ? tls : LazyTls.context();
  }

  @Override
  public SSLParameters sslParameters() {
    return LazyTls.parameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return Optional.empty();
  }

  @Override
  public Version version() {
    return Version.HTTP_1_1;
  }

  @Override
  public Optional<Executor> executor() {
    return Optional.of(THREADS);
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    CompletableFuture<HttpResponse<T>> f = sendAsync(request, handler);
    try {
      return f.get();
    } catch (InterruptedException e) {
      f.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException(String.valueOf(e.getCause()), e.getCause());
    }
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    Exchange<T> x = new Exchange<>(request, handler);
    THREADS.execute(x::run);
    return x.future;
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request,
      HttpResponse.BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> pushPromises) {
    return sendAsync(request, handler); // HTTP/1.1 has no pushes
  }

  /** One request and its reply, on one connection. */
  private final class Exchange<T> {
    private final HttpRequest request;
    private final HttpResponse.BodyHandler<T> handler;
    private volatile HttpURLConnection connection;
    private volatile boolean cancelled;

    final CompletableFuture<HttpResponse<T>> future =
        new CompletableFuture<>() {
          @Override
          public boolean cancel(boolean mayInterrupt) {
            boolean done = super.cancel(mayInterrupt);
            abort();
            return done;
          }
        };

    Exchange(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
      this.request = request;
      this.handler = handler;
    }

    void abort() {
      cancelled = true;
      HttpURLConnection c = connection;
      if (c != null) {
        c.disconnect();
      }
    }

    void run() {
      try {
        future.complete(exchange());
      } catch (Throwable t) {
        abort();
        future.completeExceptionally(t);
      }
    }

    private HttpResponse<T> exchange() throws IOException {
      URI uri = request.uri();
      RequestBodies.Streamed streamed =
          request.bodyPublisher().orElse(null) instanceof RequestBodies.Streamed st ? st : null;
      byte[] body = streamed == null ? RequestBodies.bytes(request) : null;
      HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection(proxyFor(uri));
      connection = c;
      if (tls != null && c instanceof javax.net.ssl.HttpsURLConnection https) {
        https.setSSLSocketFactory(tls.getSocketFactory());
      }
      if (cancelled) {
        throw new IOException("cancelled");
      }
      c.setInstanceFollowRedirects(false);
      c.setUseCaches(false);
      c.setConnectTimeout(Math.toIntExact(connectTimeout.toMillis()));
      request.timeout().ifPresent(t -> c.setReadTimeout(Math.toIntExact(t.toMillis())));
      c.setRequestMethod(request.method());
      request.headers().map().forEach((k, vs) -> vs.forEach(v -> c.addRequestProperty(k, v)));
      if (request.headers().firstValue("Accept").isEmpty()) {
        c.setRequestProperty("Accept", "*/*"); // not the connection's own browser-like list
      }
      if (streamed != null) {
        // Sent as it is read. An auth challenge then comes back as an exception without its body;
        // the caller of a streamed upload sends the bytes again the usual way on any failure.
        c.setDoOutput(true);
        c.setChunkedStreamingMode(CHUNK);
        InputStream source;
        try {
          source = streamed.take();
        } catch (java.io.UncheckedIOException e) {
          throw e.getCause();
        }
        try (InputStream in = source;
            OutputStream out = c.getOutputStream()) {
          in.transferTo(out);
        }
      } else if (body != null && (body.length > 0 || !request.method().equals("GET"))) {
        c.setDoOutput(true);
        // Not in streaming mode, which turns a 401 into an exception without its body: the body
        // says whether the token expired.
        try (OutputStream out = c.getOutputStream()) {
          out.write(body);
        }
      }
      int status = c.getResponseCode();
      if (status < 100 || status > 999) {
        throw new IOException("the reply from " + uri.getHost() + " is not HTTP");
      }
      HttpHeaders headers = headersOf(c);
      HttpResponse.BodySubscriber<T> subscriber = handler.apply(new Info(status, headers));
      InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
      feed(subscriber, in);
      try {
        T value = subscriber.getBody().toCompletableFuture().get();
        return new Response<>(request, uri, status, headers, value);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while the body was read", e);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          throw io;
        }
        throw new IOException(String.valueOf(e.getCause()), e.getCause());
      }
    }

    /** Hands the body to {@code subscriber} as it is read, as it asks for it. */
    private void feed(HttpResponse.BodySubscriber<T> subscriber, InputStream in) {
      Demand demand = new Demand();
      subscriber.onSubscribe(demand);
      if (in == null) {
        subscriber.onComplete();
        return;
      }
      try (in) {
        byte[] buf = new byte[CHUNK];
        while (demand.await() && !cancelled) {
          int n = in.read(buf);
          if (n < 0) {
            subscriber.onComplete();
            return;
          }
          if (n > 0) {
            subscriber.onNext(List.of(ByteBuffer.wrap(Arrays.copyOf(buf, n))));
          }
        }
        // Cancelled: what is left of the body is not read, and the connection not reused.
        abort();
      } catch (IOException e) {
        subscriber.onError(e);
      }
    }

    private Proxy proxyFor(URI uri) {
      List<Proxy> listed = proxies.select(uri);
      return listed == null || listed.isEmpty() ? Proxy.NO_PROXY : listed.get(0);
    }
  }

  /** A subscription's outstanding demand, which the reading thread waits on. */
  private static final class Demand implements Flow.Subscription {
    private long wanted;
    private boolean cancelled;

    @Override
    public synchronized void request(long n) {
      if (n <= 0) {
        cancel();
        return;
      }
      wanted = wanted + n < 0 ? Long.MAX_VALUE : wanted + n;
      notifyAll();
    }

    @Override
    public synchronized void cancel() {
      cancelled = true;
      notifyAll();
    }

    /** Waits for demand; takes one item of it and returns true, or returns false if cancelled. */
    synchronized boolean await() {
      while (wanted == 0 && !cancelled) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      if (cancelled) {
        return false;
      }
      if (wanted != Long.MAX_VALUE) {
        wanted--;
      }
      return true;
    }
  }

  /**
   * The reply's headers. Names that differ only in case are one header, their values together, as
   * {@link HttpHeaders} has it: given both, it would refuse the map, and a reply could end the call
   * with an unchecked exception.
   */
  private static HttpHeaders headersOf(HttpURLConnection c) {
    Map<String, List<String>> map = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    c.getHeaderFields()
        .forEach(
            (k, v) -> {
              if (k != null && v != null) { // null: the status line
                map.computeIfAbsent(k, x -> new java.util.ArrayList<>()).addAll(v);
              }
            });
    return HttpHeaders.of(map, (k, v) -> true);
  }

  private record Info(int statusCode, HttpHeaders headers) implements HttpResponse.ResponseInfo {
    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }
  }

  private record Response<T>(
      HttpRequest request, URI uri, int statusCode, HttpHeaders headers, T body)
      implements HttpResponse<T> {
    @Override
    public Optional<HttpResponse<T>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }
  }
}
