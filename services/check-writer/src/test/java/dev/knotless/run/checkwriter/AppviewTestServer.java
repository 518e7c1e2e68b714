package dev.knotless.run.checkwriter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An appview that implements dev.knotless.putRunOutput as its lexicon says, on 127.0.0.1: it checks
 * the input's required fields and the 16,000-byte text limit (400 InvalidRequest otherwise),
 * records every piece it takes, answers {@code {"followed": false}}, and fails with a 503 on
 * demand. Thread-safe.
 */
public final class AppviewTestServer implements AutoCloseable {
  /** One piece as the appview took it. */
  public record Received(
      String check, long offset, String text, boolean ended, String authorization, JsonNode body) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final List<Received> received = new ArrayList<>();
  private final AtomicInteger failing = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();

  private AppviewTestServer(HttpServer server) {
    this.server = server;
  }

  /** Starts one on a free port of 127.0.0.1. */
  public static AppviewTestServer start() throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    AppviewTestServer s = new AppviewTestServer(http);
    http.createContext("/xrpc/dev.knotless.putRunOutput", s::handle);
    http.start();
    return s;
  }

  /** Where it listens. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Makes the next {@code calls} calls fail with a 503. */
  public void failNext(int calls) {
    failing.set(calls);
  }

  /** How many calls were refused on demand so far. */
  public int refused() {
    return refused.get();
  }

  /** The pieces taken for {@code check}, in the order they came. */
  public synchronized List<Received> received(String check) {
    return received.stream().filter(r -> r.check().equals(check)).toList();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      if (!"POST".equals(ex.getRequestMethod())) {
        answer(ex, 405, "{\"error\":\"InvalidRequest\",\"message\":\"procedure wants POST\"}");
        return;
      }
      if (failing.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        refused.incrementAndGet();
        answer(ex, 503, "{\"error\":\"Unavailable\",\"message\":\"failing on demand\"}");
        return;
      }
      JsonNode body = JSON.readTree(ex.getRequestBody());
      String problem = problem(body);
      if (problem != null) {
        answer(
            ex,
            400,
            JSON.createObjectNode()
                .put("error", "InvalidRequest")
                .put("message", problem)
                .toString());
        return;
      }
      synchronized (this) {
        received.add(
            new Received(
                body.get("check").asText(),
                body.get("offset").asLong(),
                body.get("text").asText(),
                body.path("ended").asBoolean(false),
                ex.getRequestHeaders().getFirst("Authorization"),
                body));
      }
      answer(ex, 200, "{\"followed\":false}");
    }
  }

  private static String problem(JsonNode body) {
    if (body == null || !body.isObject()) {
      return "input must be an object";
    }
    for (String field : List.of("check", "offset", "text", "startedAt")) {
      if (!body.hasNonNull(field)) {
        return "input lacks " + field;
      }
    }
    if (!body.get("check").asText().startsWith("at://")) {
      return "check must be an AT-URI";
    }
    if (!body.get("offset").canConvertToLong() || body.get("offset").asLong() < 0) {
      return "offset must be a non-negative integer";
    }
    if (body.get("text").asText().getBytes(StandardCharsets.UTF_8).length > 16_000) {
      return "text is over 16000 bytes";
    }
    return null;
  }

  private static void answer(HttpExchange ex, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
