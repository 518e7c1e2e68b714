package dev.knotless.storage;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An HTTP/1.1 proxy on 127.0.0.1 in front of a real PDS that can lose what the network loses: the
 * reply to a request it forwarded (the PDS did the work, the client hears nothing), or the request
 * itself. It can also answer one call 429 with a {@code RateLimit-Reset}, as a PDS at its limit
 * does. Each fault is armed for the next call of one XRPC method only. Every request's method and
 * arrival time are kept. Thread-safe.
 */
final class FaultyProxy implements AutoCloseable {
  private static final Set<String> HOP =
      Set.of(
          "connection",
          "keep-alive",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "host",
          "content-length",
          "expect",
          "http2-settings");

  /** What to do to the next call of a method. */
  private sealed interface Fault {
    record DropReply() implements Fault {}

    record DropRequest() implements Fault {}

    record RateLimit(Instant reset) implements Fault {}
  }

  /** One request as it arrived. */
  record Arrival(String method, Instant at) {}

  private final URI target;
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final Map<String, Fault> armed = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Arrival> arrivals = new ConcurrentLinkedQueue<>();

  FaultyProxy(URI target) throws IOException {
    this.target = target;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** The next call of {@code nsid} reaches the PDS, but its reply never reaches the client. */
  void dropReplyOnce(String nsid) {
    armed.put(nsid, new Fault.DropReply());
  }

  /** The next call of {@code nsid} never reaches the PDS; the connection closes. */
  void dropRequestOnce(String nsid) {
    armed.put(nsid, new Fault.DropRequest());
  }

  /** The next call of {@code nsid} is answered 429, the limit resetting at {@code reset}. */
  void rateLimitOnce(String nsid, Instant reset) {
    armed.put(nsid, new Fault.RateLimit(reset));
  }

  /** When each call of {@code nsid} arrived, in order. */
  List<Instant> arrivals(String nsid) {
    List<Instant> out = new ArrayList<>();
    arrivals.stream().filter(a -> a.method().equals(nsid)).forEach(a -> out.add(a.at()));
    return out;
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getRawPath();
    String method = path.startsWith("/xrpc/") ? path.substring("/xrpc/".length()) : path;
    arrivals.add(new Arrival(method, Instant.now()));
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readAllBytes();
    }
    Fault fault = armed.remove(method);
    if (fault instanceof Fault.DropRequest) {
      exchange.close(); // no response headers sent: the connection is closed
      return;
    }
    if (fault instanceof Fault.RateLimit r) {
      byte[] error =
          "{\"error\":\"RateLimitExceeded\",\"message\":\"Rate Limit Exceeded\"}"
              .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.getResponseHeaders().set("RateLimit-Limit", "1");
      exchange.getResponseHeaders().set("RateLimit-Remaining", "0");
      exchange
          .getResponseHeaders()
          .set("RateLimit-Reset", Long.toString(r.reset().getEpochSecond()));
      exchange.sendResponseHeaders(429, error.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(error);
      }
      return;
    }
    HttpResponse<byte[]> response = forward(exchange, body);
    if (fault instanceof Fault.DropReply) {
      exchange.close(); // the PDS answered; the client never hears it
      return;
    }
    for (Map.Entry<String, List<String>> h : response.headers().map().entrySet()) {
      if (!h.getKey().startsWith(":") && !HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
        exchange.getResponseHeaders().put(h.getKey(), h.getValue());
      }
    }
    byte[] answer = response.body();
    exchange.sendResponseHeaders(response.statusCode(), answer.length == 0 ? -1 : answer.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(answer);
    }
  }

  private HttpResponse<byte[]> forward(HttpExchange exchange, byte[] body) throws IOException {
    String query = exchange.getRequestURI().getRawQuery();
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
                target.resolve(
                    exchange.getRequestURI().getRawPath() + (query == null ? "" : "?" + query)))
            .timeout(Duration.ofMinutes(2))
            .method(
                exchange.getRequestMethod(),
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    exchange
        .getRequestHeaders()
        .forEach(
            (name, values) -> {
              if (!HOP.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(v -> b.header(name, v));
              }
            });
    try {
      return client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted forwarding " + exchange.getRequestURI(), e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
